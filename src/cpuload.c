/* CPU cost (placeholder). */
#include "fab.h"
