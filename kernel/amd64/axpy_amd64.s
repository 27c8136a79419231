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

// FMA1(ioff, V, J, XW, bad) does w[idx[ioff/4]] = fma(a, V, w[..]) with
// V a register or the value's memory operand, jumping to bad first if the
// index is out of range.
#define FMA1(ioff, V, J, XW, bad) \
	MOVL        ioff(IDX), J     \
	CMPQ        J, LIM           \
	JAE         bad              \
	VMOVSD      (W)(J*8), XW     \
	VFMADD231SD V, XA, XW        \
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
	FMA1(0, 0(VAL), R8, X0, axpybad)
	FMA1(4, 8(VAL), R9, X1, axpybad)
	FMA1(8, 16(VAL), R10, X2, axpybad)
	FMA1(12, 24(VAL), R11, X3, axpybad)
	ADDQ $16, IDX
	ADDQ $32, VAL
	SUBQ $4, N
	CMPQ N, $4
	JAE  axpy4

axpytail:
	TESTQ N, N
	JE    axpydone

axpy1:
	FMA1(0, 0(VAL), R8, X0, axpybad)
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
	FMA1(0, X4, R8, X0, axpybad)
	FMA1(4, X5, R9, X1, axpybad)
	FMA1(8, X6, R10, X2, axpybad)
	FMA1(12, X7, R11, X3, axpybad)
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
	FMA1(0, X4, R8, X0, axpybad)
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
