/* SPDX-License-Identifier: BSD-3-Clause */
/* Element types and reduction operations for the collectives. MPI has no bfloat16 or
 * float16: they are 16-bit storage (a contiguous 2-byte datatype) reduced by user-defined
 * operations that widen to float32, combine, and round back to nearest-even. */
#include <math.h>
#include <string.h>

#include "core/mpi_call.h"
#include "core/status.h"
#include "kernel/dtype.h"

/* ------------------------------------------------------------------ 16-bit conversions */

static uint32_t fab_f32_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, sizeof(u));
    return u;
}

static float fab_bits_f32(uint32_t u)
{
    float f;

    memcpy(&f, &u, sizeof(f));
    return f;
}

uint16_t fab_f32_to_bf16(float f)
{
    uint32_t u = fab_f32_bits(f);

    if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it a (quiet) NaN */
        return (uint16_t)((u >> 16) | 0x40);
    /* Round to nearest, ties to even: add 0x7fff plus the lowest kept bit. */
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

float fab_bf16_to_f32(uint16_t h)
{
    return fab_bits_f32((uint32_t)h << 16);
}

uint16_t fab_f32_to_f16(float f)
{
    uint32_t x = fab_f32_bits(f), sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
    int32_t e = (int32_t)((x >> 23) & 0xff) - 127 + 15;
    uint32_t r, rem, half, shift;

    if (((x >> 23) & 0xff) == 0xff) /* inf or NaN */
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0u));
    if (e >= 0x1f) /* too large: infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) { /* subnormal half, or zero */
        if (e < -10)
            return (uint16_t)sign;
        mant |= 0x800000u;
        shift = (uint32_t)(14 - e);
        r = mant >> shift;
        rem = mant & ((1u << shift) - 1);
        half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1u)))
            r++;
        return (uint16_t)(sign | r);
    }
    r = ((uint32_t)e << 10) | (mant >> 13);
    rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u)))
        r++; /* a carry into the exponent is right, up to infinity */
    return (uint16_t)(sign | r);
}

float fab_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;

    if (e == 0) {
        float v = ldexpf((float)m, -24);

        return sign ? -v : v;
    }
    if (e == 31)
        return fab_bits_f32(sign | 0x7f800000u | (m << 13));
    return fab_bits_f32(sign | ((e - 15 + 127) << 23) | (m << 13));
}

/* ------------------------------------------------------------------ user-defined operations */

void fab_h16_reduce(const void *in, void *inout, int n, bool bf16, int op)
{
    const uint16_t *a = in;
    uint16_t *b = inout;

    for (int i = 0; i < n; i++) {
        float x = bf16 ? fab_bf16_to_f32(a[i]) : fab_f16_to_f32(a[i]);
        float y = bf16 ? fab_bf16_to_f32(b[i]) : fab_f16_to_f32(b[i]);
        /* fmaxf and fminf would drop a NaN; a diverged gradient must stay visible */
        float r = op == FAB_OP_SUM       ? x + y
                  : op == FAB_OP_PROD    ? x * y
                  : isnan(x) || isnan(y) ? NAN
                  : op == FAB_OP_MAX     ? fmaxf(x, y)
                                         : fminf(x, y);

        b[i] = bf16 ? fab_f32_to_bf16(r) : fab_f32_to_f16(r);
    }
}

/* MPI user functions carry no context: one small function per type and operation. */
static void fab_bf16_sum(void *in, void *io, int *n, MPI_Datatype *t)
{
    (void)t;
    fab_h16_reduce(in, io, *n, true, FAB_OP_SUM);
}
static void fab_bf16_max(void *in, void *io, int *n, MPI_Datatype *t)
{
    (void)t;
    fab_h16_reduce(in, io, *n, true, FAB_OP_MAX);
}
static void fab_bf16_min(void *in, void *io, int *n, MPI_Datatype *t)
{
    (void)t;
    fab_h16_reduce(in, io, *n, true, FAB_OP_MIN);
}
static void fab_bf16_prod(void *in, void *io, int *n, MPI_Datatype *t)
{
    (void)t;
    fab_h16_reduce(in, io, *n, true, FAB_OP_PROD);
}
static void fab_f16_sum(void *in, void *io, int *n, MPI_Datatype *t)
{
    (void)t;
    fab_h16_reduce(in, io, *n, false, FAB_OP_SUM);
}
static void fab_f16_max(void *in, void *io, int *n, MPI_Datatype *t)
{
    (void)t;
    fab_h16_reduce(in, io, *n, false, FAB_OP_MAX);
}
static void fab_f16_min(void *in, void *io, int *n, MPI_Datatype *t)
{
    (void)t;
    fab_h16_reduce(in, io, *n, false, FAB_OP_MIN);
}

static void fab_f16_prod(void *in, void *io, int *n, MPI_Datatype *t)
{
    (void)t;
    fab_h16_reduce(in, io, *n, false, FAB_OP_PROD);
}

/* FABRICBENCH_TEST_WRONG_OP=1: a sum that is off by one in the first element of every call,
 * so the tests can prove --validate catches a wrong reduction. */
static void fab_wrong_sum(void *in, void *io, int *n, MPI_Datatype *t)
{
    fab_dtype_t dt;

    fab_dtype_from_mpi(*t, &dt);
    for (int i = 0; i < *n; i++)
        fab_dtype_set(&dt, io, (size_t)i,
                      fab_dtype_get(&dt, in, (size_t)i) + fab_dtype_get(&dt, io, (size_t)i) +
                          (i == 0 ? 1.0 : 0.0));
}

static const char *const fab_dtype_names[FAB_DT_COUNT] = {"float32", "float64", "int32", "bfloat16",
                                                          "float16", "int8",    "uint8", "uint32",
                                                          "int64",   "uint64"};
static MPI_Datatype fab_h16_type = MPI_DATATYPE_NULL, fab_bf16_type = MPI_DATATYPE_NULL;

static MPI_Datatype fab_h16_mpi(bool bf16)
{
    MPI_Datatype *t = bf16 ? &fab_bf16_type : &fab_h16_type;

    if (*t == MPI_DATATYPE_NULL) {
        MPI_Type_contiguous(2, MPI_BYTE, t);
        MPI_Type_commit(t);
    }
    return *t;
}

/* The MPI datatype of a type id (the 16-bit ones made on first use). */
static MPI_Datatype fab_dtype_mpi(int id)
{
    switch (id) {
    case FAB_DT_FLOAT64:
        return MPI_DOUBLE;
    case FAB_DT_INT32:
        return MPI_INT;
    case FAB_DT_BFLOAT16:
        return fab_h16_mpi(true);
    case FAB_DT_FLOAT16:
        return fab_h16_mpi(false);
    case FAB_DT_INT8:
        return MPI_INT8_T;
    case FAB_DT_UINT8:
        return MPI_UINT8_T;
    case FAB_DT_UINT32:
        return MPI_UINT32_T;
    case FAB_DT_INT64:
        return MPI_INT64_T;
    case FAB_DT_UINT64:
        return MPI_UINT64_T;
    default:
        return MPI_FLOAT;
    }
}

void fab_dtype_from_mpi(MPI_Datatype t, fab_dtype_t *dt)
{
    int id = FAB_DT_FLOAT32;

    for (int i = 0; i < FAB_DT_COUNT; i++)
        if ((i != FAB_DT_BFLOAT16 || fab_bf16_type != MPI_DATATYPE_NULL) &&
            (i != FAB_DT_FLOAT16 || fab_h16_type != MPI_DATATYPE_NULL) && t == fab_dtype_mpi(i)) {
            id = i;
            break;
        }
    memset(dt, 0, sizeof(*dt));
    dt->id = id;
    dt->name = fab_dtype_names[id];
    dt->size = fab_dtype_size(id);
    dt->mpi = t;
}

fab_status_t fab_dtype_init(int id, int op, bool wrong_sum, fab_dtype_t *dt)
{
    /* avg: a sum, divided afterwards (fab_dtype_avg) */
    static const MPI_Op native[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD, MPI_SUM};
    MPI_User_function *const h16[2][5] = {
        {fab_f16_sum, fab_f16_max, fab_f16_min, fab_f16_prod, fab_f16_sum},
        {fab_bf16_sum, fab_bf16_max, fab_bf16_min, fab_bf16_prod, fab_bf16_sum}};

    if (id < 0 || id >= FAB_DT_COUNT || op < FAB_OP_SUM || op > FAB_OP_AVG)
        return FAB_ERR_USAGE;
    fab_dtype_from_mpi(fab_dtype_mpi(id), dt);
    dt->op_id = op;
    dt->emulated = id == FAB_DT_BFLOAT16 || id == FAB_DT_FLOAT16;
    dt->op = native[op];
    dt->user_op = false;
    if (wrong_sum && (op == FAB_OP_SUM || op == FAB_OP_AVG)) {
        dt->user_op = true;
        return FAB_MPI(MPI_Op_create(fab_wrong_sum, 1, &dt->op));
    }
    if (dt->emulated) {
        dt->user_op = true;
        return FAB_MPI(MPI_Op_create(h16[id == FAB_DT_BFLOAT16][op], 1, &dt->op));
    }
    return FAB_OK;
}

void fab_dtype_free(fab_dtype_t *dt)
{
    if (dt->user_op && dt->op != MPI_OP_NULL)
        MPI_Op_free(&dt->op);
    dt->user_op = false;
}

double fab_dtype_get(const fab_dtype_t *dt, const void *buf, size_t i)
{
    switch (dt->id) {
    case FAB_DT_FLOAT64:
        return ((const double *)buf)[i];
    case FAB_DT_INT32:
        return ((const int32_t *)buf)[i];
    case FAB_DT_BFLOAT16:
        return fab_bf16_to_f32(((const uint16_t *)buf)[i]);
    case FAB_DT_FLOAT16:
        return fab_f16_to_f32(((const uint16_t *)buf)[i]);
    case FAB_DT_INT8:
        return ((const int8_t *)buf)[i];
    case FAB_DT_UINT8:
        return ((const uint8_t *)buf)[i];
    case FAB_DT_UINT32:
        return ((const uint32_t *)buf)[i];
    case FAB_DT_INT64:
        return (double)((const int64_t *)buf)[i];
    case FAB_DT_UINT64:
        return (double)((const uint64_t *)buf)[i];
    default:
        return ((const float *)buf)[i];
    }
}

/* An integer value reduced modulo 2^64 (the types' wrap: the low bits are kept; exact while
 * |v| < 2^53, as every double integer is). */
static uint64_t fab_dtype_bits(double v)
{
    const double two63 = 9223372036854775808.0;
    double r = nearbyint(v);

    if (r >= -two63 && r < two63)
        return (uint64_t)(int64_t)r; /* two's complement: the same low bits */
    r = fmod(r, 2 * two63);
    if (r < 0)
        r += 2 * two63;
    return r >= two63 ? (uint64_t)(r - two63) + (UINT64_C(1) << 63) : (uint64_t)r;
}

void fab_dtype_set(const fab_dtype_t *dt, void *buf, size_t i, double v)
{
    switch (dt->id) {
    case FAB_DT_FLOAT64:
        ((double *)buf)[i] = v;
        break;
    case FAB_DT_INT32:
        ((uint32_t *)buf)[i] = (uint32_t)fab_dtype_bits(v);
        break;
    case FAB_DT_BFLOAT16:
        ((uint16_t *)buf)[i] = fab_f32_to_bf16((float)v);
        break;
    case FAB_DT_FLOAT16:
        ((uint16_t *)buf)[i] = fab_f32_to_f16((float)v);
        break;
    case FAB_DT_INT8:
    case FAB_DT_UINT8:
        ((uint8_t *)buf)[i] = (uint8_t)fab_dtype_bits(v);
        break;
    case FAB_DT_UINT32:
        ((uint32_t *)buf)[i] = (uint32_t)fab_dtype_bits(v);
        break;
    case FAB_DT_INT64:
    case FAB_DT_UINT64:
        ((uint64_t *)buf)[i] = fab_dtype_bits(v);
        break;
    default:
        ((float *)buf)[i] = (float)v;
        break;
    }
}

bool fab_dtype_integer(int id)
{
    return id == FAB_DT_INT32 || id == FAB_DT_INT8 || id == FAB_DT_UINT8 || id == FAB_DT_UINT32 ||
           id == FAB_DT_INT64 || id == FAB_DT_UINT64;
}

double fab_dtype_round(const fab_dtype_t *dt, double v)
{
    unsigned char b[8];

    fab_dtype_set(dt, b, 0, v);
    return fab_dtype_get(dt, b, 0);
}

#define FAB_AVG_LOOP(T, buf, count, n)                                                             \
    do {                                                                                           \
        T *p_ = (T *)(buf);                                                                        \
        for (size_t i_ = 0; i_ < (count); i_++)                                                    \
            p_[i_] = (T)(p_[i_] / (T)(n));                                                         \
    } while (0)

void fab_dtype_avg(const fab_dtype_t *dt, void *buf, size_t count, int n)
{
    if (dt->op_id != FAB_OP_AVG || n <= 1)
        return;
    switch (dt->id) {
    case FAB_DT_FLOAT64:
        FAB_AVG_LOOP(double, buf, count, n);
        break;
    case FAB_DT_INT32:
        FAB_AVG_LOOP(int32_t, buf, count, n);
        break;
    case FAB_DT_INT8:
        FAB_AVG_LOOP(int8_t, buf, count, n);
        break;
    case FAB_DT_UINT8:
        FAB_AVG_LOOP(uint8_t, buf, count, n);
        break;
    case FAB_DT_UINT32:
        FAB_AVG_LOOP(uint32_t, buf, count, n);
        break;
    case FAB_DT_INT64:
        FAB_AVG_LOOP(int64_t, buf, count, n);
        break;
    case FAB_DT_UINT64:
        FAB_AVG_LOOP(uint64_t, buf, count, n);
        break;
    case FAB_DT_BFLOAT16:
    case FAB_DT_FLOAT16:
        for (size_t i = 0; i < count; i++)
            fab_dtype_set(dt, buf, i, (double)((float)fab_dtype_get(dt, buf, i) / (float)n));
        break;
    default:
        FAB_AVG_LOOP(float, buf, count, n);
        break;
    }
}

/* Relative precision of one rounding: 2^-(significand bits); 0 for the integer types. */
double fab_dtype_epsilon(const fab_dtype_t *dt)
{
    if (fab_dtype_integer(dt->id))
        return 0.0;
    switch (dt->id) {
    case FAB_DT_FLOAT64:
        return ldexp(1.0, -53);
    case FAB_DT_BFLOAT16:
        return ldexp(1.0, -8);
    case FAB_DT_FLOAT16:
        return ldexp(1.0, -11);
    default:
        return ldexp(1.0, -24);
    }
}

const char *fab_dtype_name(int id)
{
    return id >= 0 && id < FAB_DT_COUNT ? fab_dtype_names[id] : "unknown";
}

/* nccl-tests' names (its ncclDataType_t strings), for the `type` column. */
const char *fab_dtype_nccl_name(int id)
{
    static const char *const names[FAB_DT_COUNT] = {"float", "double", "int32", "bfloat16",
                                                    "half",  "int8",   "uint8", "uint32",
                                                    "int64", "uint64"};

    return id >= 0 && id < FAB_DT_COUNT ? names[id] : "unknown";
}

size_t fab_dtype_size(int id)
{
    switch (id) {
    case FAB_DT_FLOAT64:
    case FAB_DT_INT64:
    case FAB_DT_UINT64:
        return 8;
    case FAB_DT_BFLOAT16:
    case FAB_DT_FLOAT16:
        return 2;
    case FAB_DT_INT8:
    case FAB_DT_UINT8:
        return 1;
    default:
        return 4;
    }
}

const char *fab_dtype_arithmetic(int id)
{
    return id == FAB_DT_BFLOAT16 || id == FAB_DT_FLOAT16
               ? "emulated: 16-bit storage, float32 arithmetic in a user-defined MPI op, "
                 "rounded to nearest-even"
               : "native MPI datatype and op";
}

const char *fab_op_name(int op)
{
    static const char *const names[] = {"sum", "max", "min", "prod", "avg"};

    return op >= 0 && op <= FAB_OP_AVG ? names[op] : "unknown";
}
