/* SPDX-License-Identifier: BSD-3-Clause */
/* Size-list parsing: valid and invalid forms; the time a sweep's sizes left will take. */
#include <math.h>

#include "check.h"
#include "core/sizes.h"
#include "core/status.h"

static int parses(const char *s, fab_sizes_t *out)
{
    char err[256];

    return fab_sizes_parse(s, out, err, sizeof(err)) == FAB_OK;
}

static int fails_with(const char *s, const char *needle)
{
    fab_sizes_t out;
    char err[256] = "";
    int ok = fab_sizes_parse(s, &out, err, sizeof(err)) == FAB_ERR_USAGE && strstr(err, needle);

    if (!ok)
        fprintf(stderr, "  '%s' gave '%s', wanted it to mention '%s'\n", s, err, needle);
    return ok;
}

int main(void)
{
    fab_sizes_t s;
    size_t one;
    char err[256], buf[32];

    CHECK(fab_size_parse("8", &one, err, sizeof(err)) == FAB_OK && one == 8);
    CHECK(fab_size_parse("4K", &one, err, sizeof(err)) == FAB_OK && one == 4096);
    CHECK(fab_size_parse("4k", &one, err, sizeof(err)) == FAB_OK && one == 4096);
    CHECK(fab_size_parse("2KiB", &one, err, sizeof(err)) == FAB_OK && one == 2048);
    CHECK(fab_size_parse("1M", &one, err, sizeof(err)) == FAB_OK && one == 1048576);
    CHECK(fab_size_parse("1MB", &one, err, sizeof(err)) == FAB_OK && one == 1048576);
    CHECK(fab_size_parse("1G", &one, err, sizeof(err)) == FAB_OK && one == 1073741824);
    CHECK(fab_size_parse("16B", &one, err, sizeof(err)) == FAB_OK && one == 16);

    CHECK(parses("1:16", &s) && s.n == 5 && s.v[0] == 1 && s.v[4] == 16);
    CHECK(parses("1:4M", &s) && s.n == 23 && s.v[22] == 4194304);
    /* a size twice: refused, whichever way it is written */
    CHECK(fails_with("8,1K,8", "size 8 appears twice"));
    CHECK(fails_with("1K,1024", "appears twice"));
    CHECK(parses("8,16,1K", &s) && s.n == 3);
    CHECK(parses("3:20", &s) && s.n == 4 && s.v[0] == 3 && s.v[2] == 12 && s.v[3] == 20);
    CHECK(parses("8:8", &s) && s.n == 1 && s.v[0] == 8);
    CHECK(parses("8,1K,64K,1M", &s) && s.n == 4 && s.v[1] == 1024 && s.v[2] == 65536 &&
          s.v[3] == 1048576);
    CHECK(parses("1M,8", &s) && s.n == 2 && s.v[0] == 1048576 && s.v[1] == 8);
    /* the progress line's estimate under -i, a + b x bytes through the last two sizes: 512K
     * in 5 s and 1M in 10 s (rate bound), so 2M and 4M about 20 + 40 s (an average over the
     * sizes done said "about 4 s left" where 97 s were); 512K and 1M in 10 s each (latency
     * bound): 10 s each; 2 s then 10 s (8 s more for 512K more): 32 + 64 s; nothing to
     * compare: in proportion;
     * a size not above the last as long as it; none after the last */
    CHECK(parses("1:4M", &s) && fabs(fab_sizes_time_left(&s, 20, 10.0, 5.0) - 60.0) < 1e-9 &&
          fabs(fab_sizes_time_left(&s, 20, 10.0, 10.0) - 20.0) < 1e-9 &&
          fabs(fab_sizes_time_left(&s, 20, 10.0, 12.0) - 20.0) < 1e-9 &&
          fabs(fab_sizes_time_left(&s, 20, 10.0, 2.0) - 96.0) < 1e-9 &&
          fabs(fab_sizes_time_left(&s, 20, 10.0, 0.0) - 60.0) < 1e-9 &&
          fab_sizes_time_left(&s, 22, 10.0, 5.0) == 0.0);
    /* latency bound at 1K, 0.3 s each: the sizes up to 4M 0.3 s each, not 2,500 s */
    CHECK(parses("1:4M", &s) && fabs(fab_sizes_time_left(&s, 10, 0.3, 0.3) - 12 * 0.3) < 1e-9);
    CHECK(parses("1M,8,2M", &s) && fabs(fab_sizes_time_left(&s, 0, 1.0, 0.0) - 3.0) < 1e-9 &&
          fabs(fab_sizes_time_left(&s, 1, 1.0, 2.0) - 262144.0) < 1e-6);

    CHECK(fails_with("0", "size '0' is out of range; give a size from 1 to 1G bytes"));
    CHECK(fails_with("8:abc", "not a size"));
    CHECK(fails_with("abc", "not a size"));
    CHECK(fails_with("-8", "size '-8' is out of range"));
    CHECK(fails_with("1G:1K", "backwards"));
    CHECK(fails_with("4X", "unknown unit"));
    CHECK(fails_with("4KX", "unknown unit"));
    CHECK(fails_with("2G", "'2G' is out of range; give a size from 1 to 1G bytes"));
    CHECK(fails_with("99999999999999999999999", "out of range"));
    CHECK(fails_with("1e400", "out of range"));
    /* the number grammar of core/num.h: decimal, a fraction or an exponent when the bytes are
     * whole; no spaces, no hexadecimal, no inf or nan */
    CHECK(parses("1.5K", &s) && s.n == 1 && s.v[0] == 1536);
    CHECK(parses("1e3,0.5K,2.5MiB", &s) && s.n == 3 && s.v[0] == 1000 && s.v[1] == 512 &&
          s.v[2] == 2621440);
    CHECK(fails_with("0.5", "'0.5' is not a whole number of bytes"));
    CHECK(fails_with("1.1K", "not a whole number of bytes"));
    CHECK(fails_with(" 8", "spaces are not accepted"));
    CHECK(fails_with("8 ", "spaces are not accepted"));
    CHECK(fails_with("8, 16", "spaces are not accepted"));
    CHECK(fails_with("8 :16", "spaces are not accepted"));
    CHECK(fails_with("8:\t16", "spaces are not accepted"));
    CHECK(fails_with("0x10", "hexadecimal"));
    CHECK(fails_with("inf", "not a finite number"));
    CHECK(fails_with("nanK", "not a finite number"));
    CHECK(parses("+8", &s) && s.v[0] == 8); /* a sign is part of the grammar */
    CHECK(fails_with("1e", "unknown unit 'e'"));
    CHECK(fails_with("4KK", "unknown unit 'KK'"));
    /* a size option's own range: 0 allowed where the option says so (--sockbuf 0) */
    CHECK(fab_size_parse_in("0", 0, FAB_SIZE_MAX, &one, err, sizeof(err)) == FAB_OK && one == 0);
    CHECK(fab_size_parse_in("2G", 0, FAB_SIZE_MAX, &one, err, sizeof(err)) == FAB_ERR_USAGE &&
          strstr(err, "from 0 to 1G bytes"));
    CHECK(fails_with("8,,16", "empty entry"));
    CHECK(fails_with("8,", "empty entry"));
    CHECK(fails_with("", "empty"));
    CHECK(fails_with("1:2:3", "MIN:MAX"));
    CHECK(fails_with(":8", "MIN:MAX"));
    CHECK(fails_with("1:1G,1:2", "mixes a range and a list"));
    CHECK(fails_with("1,2:8", "mixes a range and a list"));
    CHECK(fails_with("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,"
                     "28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,"
                     "52,53,54,55,56,57,58,59,60,61,62,63,64,65",
                     "too many sizes"));

    fab_size_format(4096, buf, sizeof(buf));
    CHECK(strcmp(buf, "4K") == 0);
    fab_size_format(3 << 20, buf, sizeof(buf));
    CHECK(strcmp(buf, "3M") == 0);
    fab_size_format(1000, buf, sizeof(buf));
    CHECK(strcmp(buf, "1000") == 0);
    return fab_test_report("test_sizes");
}
