/* SPDX-License-Identifier: BSD-3-Clause */
/* Element types of the collectives (--dtype) and their reductions (--op); bfloat16 and
 * float16 are emulated: 16-bit storage, float32 arithmetic in a user-defined MPI_Op. */
#ifndef FAB_KERNEL_DTYPE_H
#define FAB_KERNEL_DTYPE_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* Element types (--dtype, in the order of its choice list) and operations (--op). */
enum { FAB_DT_FLOAT32, FAB_DT_FLOAT64, FAB_DT_INT32, FAB_DT_BFLOAT16, FAB_DT_FLOAT16 };
enum { FAB_OP_SUM, FAB_OP_MAX, FAB_OP_MIN, FAB_OP_PROD };

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
const char *fab_dtype_name(int id);
/* The type as nccl-tests names it: float, double, int32, bfloat16, half. */
const char *fab_dtype_nccl_name(int id);
/* Bytes per element of type id. */
size_t fab_dtype_size(int id);
/* How the reductions of a --dtype are computed: natively by MPI, or emulated (16-bit types). */
const char *fab_dtype_arithmetic(int id);
const char *fab_op_name(int op);

#endif
