/* SPDX-License-Identifier: BSD-3-Clause */
/* Element types of the collectives (--dtype) and their reductions (--op); bfloat16 and
 * float16 are emulated: 16-bit storage, float32 arithmetic in a user-defined MPI_Op. The
 * integer types are native MPI types (an overflowing reduction is undefined in MPI; storing a
 * value here keeps its low bits); avg is MPI_SUM followed by a division by the ranks
 * (fab_dtype_avg), as an MPI program averages. */
#ifndef FAB_KERNEL_DTYPE_H
#define FAB_KERNEL_DTYPE_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* Element types (--dtype, in the order of its choice list) and operations (--op). */
enum {
    FAB_DT_FLOAT32,
    FAB_DT_FLOAT64,
    FAB_DT_INT32,
    FAB_DT_BFLOAT16,
    FAB_DT_FLOAT16,
    FAB_DT_INT8,
    FAB_DT_UINT8,
    FAB_DT_UINT32,
    FAB_DT_INT64,
    FAB_DT_UINT64,
    FAB_DT_COUNT
};
enum { FAB_OP_SUM, FAB_OP_MAX, FAB_OP_MIN, FAB_OP_PROD, FAB_OP_AVG };

typedef struct fab_dtype {
    int id;
    const char *name; /* float32, ... */
    size_t size;      /* bytes per element */
    MPI_Datatype mpi;
    MPI_Op op; /* the reduction for --op on this type */
    int op_id;
    bool emulated; /* bfloat16, float16: 16-bit storage, user-defined operation */
    bool user_op;  /* op was created here and must be freed */
} fab_dtype_t;

uint16_t fab_f32_to_bf16(float f);
float fab_bf16_to_f32(uint16_t h);
uint16_t fab_f32_to_f16(float f);
float fab_f16_to_f32(uint16_t h);
/* inout[i] = in[i] (op) inout[i] for 16-bit elements, in float32, rounded to nearest-even. */
void fab_h16_reduce(const void *in, void *inout, int n, bool bf16, int op);
/* The type id (FAB_DT_*) with the reduction op (FAB_OP_*); wrong_sum: the test-only broken
 * sum. */
fab_status_t fab_dtype_init(int id, int op, bool wrong_sum, fab_dtype_t *dt);
void fab_dtype_free(fab_dtype_t *dt);
void fab_dtype_from_mpi(MPI_Datatype t, fab_dtype_t *dt);
double fab_dtype_get(const fab_dtype_t *dt, const void *buf, size_t i);
void fab_dtype_set(const fab_dtype_t *dt, void *buf, size_t i, double v);
double fab_dtype_epsilon(const fab_dtype_t *dt);
/* Whether the type is an integer type (exact arithmetic, wrapping). */
bool fab_dtype_integer(int id);
/* A value as the type holds it: v stored and read back (integers wrap, floats round). */
double fab_dtype_round(const fab_dtype_t *dt, double v);
/* --op avg: count elements of buf divided by n in place (integers: truncated toward zero, in
 * the type's own arithmetic); nothing for the other operations. */
void fab_dtype_avg(const fab_dtype_t *dt, void *buf, size_t count, int n);
const char *fab_dtype_name(int id);
/* The type as nccl-tests names it: float, double, int32, bfloat16, half, int8, uint8, uint32,
 * int64, uint64. */
const char *fab_dtype_nccl_name(int id);
/* Bytes per element of type id. */
size_t fab_dtype_size(int id);
/* How the reductions of a --dtype are computed: natively by MPI, or emulated (16-bit types). */
const char *fab_dtype_arithmetic(int id);
const char *fab_op_name(int op);

#endif
