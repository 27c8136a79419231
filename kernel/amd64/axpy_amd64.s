//go:build !purego

#include "textflag.h"

// Axpy kernels: w[j] = fma(a, val[k], w[j]) one element at a time (load,
// VFMADD231SD, store), in order of k, so that the result is bit for bit
// package kernel's generic loop and a repeated index is handled in order.
// (The alternatives measured: docs/tuning.md.)

#define IDX SI // &idx[k]
#define VAL DI // &val[k]
#define W   DX // &w[0]
#define N   CX // elements left
#define LIM BX // min(len(w), 1<<31): j is in range iff uint32(j) < LIM
#define T   R8 // scratch
#define XA  X13 // a

// CLAMP_N_LIM turns N = len(idx), T = len(val), LIM = len(w) into
// N = min(len(idx), len(val)) and LIM = min(len(w), 1<<31).
#define CLAMP_N_LIM \
	CMPQ    T, N         \
	CMOVQLT T, N         \
	MOVQ    $0x80000000, T \
	CMPQ    LIM, T       \
	CMOVQHI T, LIM

// FMA1(ioff, voff, J, XW, bad) does w[idx[ioff/4]] = fma(a, val, w[..])
// with the float64 value at voff(VAL), jumping to bad first if the index
// is out of range.
#define FMA1(ioff, voff, J, XW, bad) \
	MOVL        ioff(IDX), J     \
	CMPQ        J, LIM           \
	JAE         bad              \
	VMOVSD      (W)(J*8), XW     \
	VFMADD231SD voff(VAL), XA, XW \
	VMOVSD      XW, (W)(J*8)

// func AxpyAVX2(a float64, idx []int32, val []float64, w []float64) (ok bool)
TEXT ·AxpyAVX2(SB), NOSPLIT, $0-81
	MOVQ   idx_base+8(FP), IDX
	MOVQ   idx_len+16(FP), N
	MOVQ   val_base+32(FP), VAL
	MOVQ   val_len+40(FP), T
	MOVQ   w_base+56(FP), W
	MOVQ   w_len+64(FP), LIM
	CLAMP_N_LIM
	VMOVSD a+0(FP), XA

	CMPQ N, $4
	JB   axpytail

axpy4:
	FMA1(0, 0, R8, X0, axpybad)
	FMA1(4, 8, R9, X1, axpybad)
	FMA1(8, 16, R10, X2, axpybad)
	FMA1(12, 24, R11, X3, axpybad)
	ADDQ $16, IDX
	ADDQ $32, VAL
	SUBQ $4, N
	CMPQ N, $4
	JAE  axpy4

axpytail:
	TESTQ N, N
	JE    axpydone

axpy1:
	FMA1(0, 0, R8, X0, axpybad)
	ADDQ $4, IDX
	ADDQ $8, VAL
	DECQ N
	JNE  axpy1

axpydone:
	MOVB $1, ok+80(FP)
	RET

axpybad:
	MOVB $0, ok+80(FP)
	RET

// FMA1R is FMA1 with the value in the low lane of XV.
#define FMA1R(ioff, J, XV, XW, bad) \
	MOVL        ioff(IDX), J     \
	CMPQ        J, LIM           \
	JAE         bad              \
	VMOVSD      (W)(J*8), XW     \
	VFMADD231SD XV, XA, XW       \
	VMOVSD      XW, (W)(J*8)

// func Axpy32AVX2(a float64, idx []int32, val []float32, w []float64) (ok bool)
TEXT ·Axpy32AVX2(SB), NOSPLIT, $0-81
	MOVQ   idx_base+8(FP), IDX
	MOVQ   idx_len+16(FP), N
	MOVQ   val_base+32(FP), VAL
	MOVQ   val_len+40(FP), T
	MOVQ   w_base+56(FP), W
	MOVQ   w_len+64(FP), LIM
	CLAMP_N_LIM
	VMOVSD a+0(FP), XA

	CMPQ N, $4
	JB   axpytail

axpy4:
	// Four values widened at once, then one FMA per element.
	VCVTPS2PD    (VAL), Y4
	VEXTRACTF128 $1, Y4, X6
	VUNPCKHPD    X4, X4, X5
	VUNPCKHPD    X6, X6, X7
	FMA1R(0, R8, X4, X0, axpybad)
	FMA1R(4, R9, X5, X1, axpybad)
	FMA1R(8, R10, X6, X2, axpybad)
	FMA1R(12, R11, X7, X3, axpybad)
	ADDQ $16, IDX
	ADDQ $16, VAL
	SUBQ $4, N
	CMPQ N, $4
	JAE  axpy4

axpytail:
	TESTQ N, N
	JE    axpydone

axpy1:
	VMOVSS    (VAL), X4
	VCVTSS2SD X4, X4, X4
	FMA1R(0, R8, X4, X0, axpybad)
	ADDQ $4, IDX
	ADDQ $4, VAL
	DECQ N
	JNE  axpy1

axpydone:
	VZEROUPPER
	MOVB $1, ok+80(FP)
	RET

axpybad:
	VZEROUPPER
	MOVB $0, ok+80(FP)
	RET
