/* Placeholder: being written. */
#include "check.h"

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 1;
}
