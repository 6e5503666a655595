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

static const char *const fab_dtype_names[] = {"float32", "float64", "int32", "bfloat16", "float16"};
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

void fab_dtype_from_mpi(MPI_Datatype t, fab_dtype_t *dt)
{
    int id = t == MPI_DOUBLE      ? FAB_DT_FLOAT64
             : t == MPI_INT       ? FAB_DT_INT32
             : t == fab_bf16_type ? FAB_DT_BFLOAT16
             : t == fab_h16_type  ? FAB_DT_FLOAT16
                                  : FAB_DT_FLOAT32;

    memset(dt, 0, sizeof(*dt));
    dt->id = id;
    dt->name = fab_dtype_names[id];
    dt->size = fab_dtype_size(id);
    dt->mpi = t;
}

fab_status_t fab_dtype_init(int id, int op, bool wrong_sum, fab_dtype_t *dt)
{
    static const MPI_Op native[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
    MPI_User_function *const h16[2][4] = {
        {fab_f16_sum, fab_f16_max, fab_f16_min, fab_f16_prod},
        {fab_bf16_sum, fab_bf16_max, fab_bf16_min, fab_bf16_prod}};
    MPI_Datatype t = id == FAB_DT_FLOAT64    ? MPI_DOUBLE
                     : id == FAB_DT_INT32    ? MPI_INT
                     : id == FAB_DT_BFLOAT16 ? fab_h16_mpi(true)
                     : id == FAB_DT_FLOAT16  ? fab_h16_mpi(false)
                                             : MPI_FLOAT;

    fab_dtype_from_mpi(t, dt);
    dt->op_id = op;
    dt->emulated = id == FAB_DT_BFLOAT16 || id == FAB_DT_FLOAT16;
    dt->op = native[op];
    dt->user_op = false;
    if (wrong_sum && op == FAB_OP_SUM) {
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
    default:
        return ((const float *)buf)[i];
    }
}

void fab_dtype_set(const fab_dtype_t *dt, void *buf, size_t i, double v)
{
    switch (dt->id) {
    case FAB_DT_FLOAT64:
        ((double *)buf)[i] = v;
        break;
    case FAB_DT_INT32:
        ((int32_t *)buf)[i] = (int32_t)v;
        break;
    case FAB_DT_BFLOAT16:
        ((uint16_t *)buf)[i] = fab_f32_to_bf16((float)v);
        break;
    case FAB_DT_FLOAT16:
        ((uint16_t *)buf)[i] = fab_f32_to_f16((float)v);
        break;
    default:
        ((float *)buf)[i] = (float)v;
        break;
    }
}

/* Relative precision of one rounding: 2^-(significand bits). */
double fab_dtype_epsilon(const fab_dtype_t *dt)
{
    switch (dt->id) {
    case FAB_DT_FLOAT64:
        return ldexp(1.0, -53);
    case FAB_DT_INT32:
        return 0.0;
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
    return id >= 0 && id <= FAB_DT_FLOAT16 ? fab_dtype_names[id] : "unknown";
}

/* nccl-tests' names (its ncclDataType_t strings), for the `type` column. */
const char *fab_dtype_nccl_name(int id)
{
    static const char *const names[] = {"float", "double", "int32", "bfloat16", "half"};

    return id >= 0 && id <= FAB_DT_FLOAT16 ? names[id] : "unknown";
}

size_t fab_dtype_size(int id)
{
    return id == FAB_DT_FLOAT64 ? 8 : id == FAB_DT_BFLOAT16 || id == FAB_DT_FLOAT16 ? 2 : 4;
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
    static const char *const names[] = {"sum", "max", "min", "prod"};

    return op >= 0 && op <= FAB_OP_PROD ? names[op] : "unknown";
}
