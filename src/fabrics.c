/* Fabric profiles (placeholder). */
#include "fab.h"
