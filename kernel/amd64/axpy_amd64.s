//go:build !purego

#include "textflag.h"

// Axpy kernels. They compute the products a*val four at a time with
// VMULPD, then add them to w one element at a time (load, VADDSD, store):
// the same two roundings as the Go loop, so the result is bit for bit
// generic's, and a repeated index is handled in order. (The
// alternatives measured: docs/tuning.md.)

#define IDX SI // &idx[k]
#define VAL DI // &val[k]
#define W   DX // &w[0]
#define N   CX // elements left
#define LIM BX // min(len(w), 1<<31): j is in range iff uint32(j) < LIM
#define T   R8 // scratch
#define YA  Y13 // a in every lane
#define XA  X13

// CLAMP_N_LIM turns N = len(idx), T = len(val), LIM = len(w) into
// N = min(len(idx), len(val)) and LIM = min(len(w), 1<<31).
#define CLAMP_N_LIM \
	CMPQ    T, N         \
	CMOVQLT T, N         \
	MOVQ    $0x80000000, T \
	CMPQ    LIM, T       \
	CMOVQHI T, LIM

// ADD1(ioff, J, XT, XW, bad) does w[idx[ioff/4]] += XT (low lane),
// jumping to bad first if the index is out of range.
#define ADD1(ioff, J, XT, XW, bad) \
	MOVL   ioff(IDX), J   \
	CMPQ   J, LIM         \
	JAE    bad            \
	VADDSD (W)(J*8), XT, XW \
	VMOVSD XW, (W)(J*8)

// func AxpyAVX2(a float64, idx []int32, val []float64, w []float64) (ok bool)
TEXT ·AxpyAVX2(SB), NOSPLIT, $0-81
	MOVQ  idx_base+8(FP), IDX
	MOVQ  idx_len+16(FP), N
	MOVQ  val_base+32(FP), VAL
	MOVQ  val_len+40(FP), T
	MOVQ  w_base+56(FP), W
	MOVQ  w_len+64(FP), LIM
	CLAMP_N_LIM
	VBROADCASTSD a+0(FP), YA

	CMPQ N, $4
	JB   axpytail

axpy4:
	// t = a*val[k:k+4] in one vector, then four scalar adds.
	VMULPD       (VAL), YA, Y0
	VEXTRACTF128 $1, Y0, X2
	VUNPCKHPD    X0, X0, X1
	VUNPCKHPD    X2, X2, X3
	ADD1(0, R8, X0, X4, axpybad)
	ADD1(4, R9, X1, X5, axpybad)
	ADD1(8, R10, X2, X6, axpybad)
	ADD1(12, R11, X3, X7, axpybad)
	ADDQ $16, IDX
	ADDQ $32, VAL
	SUBQ $4, N
	CMPQ N, $4
	JAE  axpy4

axpytail:
	TESTQ N, N
	JE    axpydone

axpy1:
	VMULSD (VAL), XA, X0
	ADD1(0, R8, X0, X4, axpybad)
	ADDQ $4, IDX
	ADDQ $8, VAL
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

// func Axpy32AVX2(a float64, idx []int32, val []float32, w []float64) (ok bool)
TEXT ·Axpy32AVX2(SB), NOSPLIT, $0-81
	MOVQ  idx_base+8(FP), IDX
	MOVQ  idx_len+16(FP), N
	MOVQ  val_base+32(FP), VAL
	MOVQ  val_len+40(FP), T
	MOVQ  w_base+56(FP), W
	MOVQ  w_len+64(FP), LIM
	CLAMP_N_LIM
	VBROADCASTSD a+0(FP), YA

	CMPQ N, $4
	JB   axpytail

axpy4:
	// t = a*float64(val[k:k+4]) in one vector, then four scalar adds:
	// the same two roundings as the Go loop.
	VCVTPS2PD    (VAL), Y0
	VMULPD       Y0, YA, Y0
	VEXTRACTF128 $1, Y0, X2
	VUNPCKHPD    X0, X0, X1
	VUNPCKHPD    X2, X2, X3
	ADD1(0, R8, X0, X4, axpybad)
	ADD1(4, R9, X1, X5, axpybad)
	ADD1(8, R10, X2, X6, axpybad)
	ADD1(12, R11, X3, X7, axpybad)
	ADDQ $16, IDX
	ADDQ $16, VAL
	SUBQ $4, N
	CMPQ N, $4
	JAE  axpy4

axpytail:
	TESTQ N, N
	JE    axpydone

axpy1:
	VMOVSS    (VAL), X0
	VCVTSS2SD X0, X0, X0
	VMULSD    X0, XA, X0
	ADD1(0, R8, X0, X4, axpybad)
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
