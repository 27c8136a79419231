//go:build !purego

#include "textflag.h"

// Dot, Dot32 and SqNorm add the k-th product into lane k mod 8 of eight
// partial sums with a fused multiply-add and combine the lanes as
// ((s0+s4) + (s2+s6)) + ((s1+s5) + (s3+s7)); Axpy and Axpy32 do one fused
// multiply-add per element, in order. That is package kernel's generic
// code, so the results are bit for bit the same.

#define IDX R0 // &idx[k]
#define VAL R1 // &val[k]
#define W   R2 // &w[0]
#define N   R3 // elements left
#define LIM R4 // min(len(w), 1<<31): j is in range iff uint32(j) < LIM
#define T   R5 // scratch
#define FA  F31 // a (Axpy)

// CLAMP_N_LIM sets N = min(N, T) (T = len(val)) and LIM = min(LIM, 1<<31).
#define CLAMP_N_LIM \
	CMP  T, N            \
	CSEL GT, T, N, N     \
	MOVD $0x80000000, T  \
	CMP  T, LIM          \
	CSEL HI, T, LIM, LIM

// CHECK(J, bad): branch to bad unless the zero-extended index J < LIM.
// A negative int32 index is >= 1<<31 >= LIM.
#define CHECK(J, bad) \
	CMP LIM, J \
	BHS bad

// DOT1(ACC, bad) adds val[k]*w[idx[k]] into ACC and moves to the next
// element, branching to bad first if the index is out of range.
#define DOT1(ACC, bad) \
	MOVWU.P 4(IDX), R6        \
	CHECK(R6, bad)            \
	FMOVD   (W)(R6<<3), F16   \
	FMOVD.P 8(VAL), F24       \
	FMADDD  F24, ACC, F16, ACC \
	SUB     $1, N

// DOT32_1 is DOT1 for a float32 value.
#define DOT32_1(ACC, bad) \
	MOVWU.P 4(IDX), R6        \
	CHECK(R6, bad)            \
	FMOVD   (W)(R6<<3), F16   \
	FMOVS.P 4(VAL), F24       \
	FCVTSD  F24, F24          \
	FMADDD  F24, ACC, F16, ACC \
	SUB     $1, N

// SUM8 combines the partial sums F0..F7 (lane l in Fl) into F0:
// ((s0+s4) + (s2+s6)) + ((s1+s5) + (s3+s7)).
#define SUM8 \
	FADDD F4, F0 \
	FADDD F5, F1 \
	FADDD F6, F2 \
	FADDD F7, F3 \
	FADDD F2, F0 \
	FADDD F3, F1 \
	FADDD F1, F0

// func DotNEON(idx []int32, val []float64, w []float64) (s float64, ok bool)
TEXT ·DotNEON(SB), NOSPLIT, $0-81
	MOVD idx_base+0(FP), IDX
	MOVD idx_len+8(FP), N
	MOVD val_base+24(FP), VAL
	MOVD val_len+32(FP), T
	MOVD w_base+48(FP), W
	MOVD w_len+56(FP), LIM
	CLAMP_N_LIM
	FMOVD ZR, F0
	FMOVD ZR, F1
	FMOVD ZR, F2
	FMOVD ZR, F3
	FMOVD ZR, F4
	FMOVD ZR, F5
	FMOVD ZR, F6
	FMOVD ZR, F7

	CMP $8, N
	BLT dottail

dot8:
	LDPW   (IDX), (R6, R7) // LDP of W registers zero-extends
	LDPW   8(IDX), (R8, R9)
	LDPW   16(IDX), (R10, R11)
	LDPW   24(IDX), (R12, R13)
	CHECK(R6, dotbad)
	CHECK(R7, dotbad)
	CHECK(R8, dotbad)
	CHECK(R9, dotbad)
	CHECK(R10, dotbad)
	CHECK(R11, dotbad)
	CHECK(R12, dotbad)
	CHECK(R13, dotbad)
	FMOVD  (W)(R6<<3), F16
	FMOVD  (W)(R7<<3), F17
	FMOVD  (W)(R8<<3), F18
	FMOVD  (W)(R9<<3), F19
	FMOVD  (W)(R10<<3), F20
	FMOVD  (W)(R11<<3), F21
	FMOVD  (W)(R12<<3), F22
	FMOVD  (W)(R13<<3), F23
	FLDPD  (VAL), (F24, F25)
	FLDPD  16(VAL), (F26, F27)
	FLDPD  32(VAL), (F28, F29)
	FLDPD  48(VAL), (F30, F31)
	FMADDD F24, F0, F16, F0 // F0 += F16*F24
	FMADDD F25, F1, F17, F1
	FMADDD F26, F2, F18, F2
	FMADDD F27, F3, F19, F3
	FMADDD F28, F4, F20, F4
	FMADDD F29, F5, F21, F5
	FMADDD F30, F6, F22, F6
	FMADDD F31, F7, F23, F7
	ADD    $32, IDX
	ADD    $64, VAL
	SUB    $8, N
	CMP    $8, N
	BGE    dot8

dottail:
	// 0..7 left: element l of the last group goes to lane l.
	CBZ N, dotsum
	DOT1(F0, dotbad)
	CBZ N, dotsum
	DOT1(F1, dotbad)
	CBZ N, dotsum
	DOT1(F2, dotbad)
	CBZ N, dotsum
	DOT1(F3, dotbad)
	CBZ N, dotsum
	DOT1(F4, dotbad)
	CBZ N, dotsum
	DOT1(F5, dotbad)
	CBZ N, dotsum
	DOT1(F6, dotbad)

dotsum:
	SUM8
	FMOVD F0, s+72(FP)
	MOVD  $1, T
	MOVB  T, ok+80(FP)
	RET

dotbad:
	MOVD ZR, s+72(FP)
	MOVB ZR, ok+80(FP)
	RET

// AXPY2(J0, J1, V0, V1, X0, X1, bad): w[J0] += a*V0, then w[J1] += a*V1.
#define AXPY2(J0, J1, V0, V1, X0, X1, bad) \
	CHECK(J0, bad)               \
	FMOVD  (W)(J0<<3), X0        \
	FMADDD V0, X0, FA, X0        \
	FMOVD  X0, (W)(J0<<3)        \
	CHECK(J1, bad)               \
	FMOVD  (W)(J1<<3), X1        \
	FMADDD V1, X1, FA, X1        \
	FMOVD  X1, (W)(J1<<3)

// func AxpyNEON(a float64, idx []int32, val []float64, w []float64) (ok bool)
TEXT ·AxpyNEON(SB), NOSPLIT, $0-81
	FMOVD a+0(FP), FA
	MOVD  idx_base+8(FP), IDX
	MOVD  idx_len+16(FP), N
	MOVD  val_base+32(FP), VAL
	MOVD  val_len+40(FP), T
	MOVD  w_base+56(FP), W
	MOVD  w_len+64(FP), LIM
	CLAMP_N_LIM

	CMP $4, N
	BLT axpytail

axpy4:
	LDPW  (IDX), (R6, R7)
	LDPW  8(IDX), (R8, R9)
	FLDPD (VAL), (F16, F17)
	FLDPD 16(VAL), (F18, F19)
	AXPY2(R6, R7, F16, F17, F0, F1, axpybad)
	AXPY2(R8, R9, F18, F19, F2, F3, axpybad)
	ADD   $16, IDX
	ADD   $32, VAL
	SUB   $4, N
	CMP   $4, N
	BGE   axpy4

axpytail:
	CBZ N, axpydone

axpy1:
	MOVWU.P 4(IDX), R6
	CHECK(R6, axpybad)
	FMOVD.P 8(VAL), F16
	FMOVD   (W)(R6<<3), F0
	FMADDD  F16, F0, FA, F0
	FMOVD   F0, (W)(R6<<3)
	SUB     $1, N
	CBNZ    N, axpy1

axpydone:
	MOVD $1, T
	MOVB T, ok+80(FP)
	RET

axpybad:
	MOVB ZR, ok+80(FP)
	RET

// SQ1(ACC) adds the square of the next value into ACC.
#define SQ1(ACC) \
	FMOVD.P 8(VAL), F16       \
	FMADDD  F16, ACC, F16, ACC \
	SUB     $1, N

// func SqNormNEON(val []float64) (s float64)
TEXT ·SqNormNEON(SB), NOSPLIT, $0-32
	MOVD val_base+0(FP), VAL
	MOVD val_len+8(FP), N
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16

	CMP $8, N
	BLT sqtail

sq8:
	VLD1.P 64(VAL), [V16.D2, V17.D2, V18.D2, V19.D2]
	VFMLA  V16.D2, V16.D2, V0.D2
	VFMLA  V17.D2, V17.D2, V1.D2
	VFMLA  V18.D2, V18.D2, V2.D2
	VFMLA  V19.D2, V19.D2, V3.D2
	SUB    $8, N
	CMP    $8, N
	BGE    sq8

sqtail:
	// Lanes 0, 2, 4, 6 are the low halves F0..F3 of V0..V3; move lanes
	// 1, 3, 5, 7 to F20..F23 before the scalar code clears the high
	// halves. Element l of a last group of 1..7 goes to lane l.
	VDUP V0.D[1], V20
	VDUP V1.D[1], V21
	VDUP V2.D[1], V22
	VDUP V3.D[1], V23
	CBZ  N, sqsum
	SQ1(F0)
	CBZ  N, sqsum
	SQ1(F20)
	CBZ  N, sqsum
	SQ1(F1)
	CBZ  N, sqsum
	SQ1(F21)
	CBZ  N, sqsum
	SQ1(F2)
	CBZ  N, sqsum
	SQ1(F22)
	CBZ  N, sqsum
	SQ1(F3)

sqsum:
	// ((s0+s4) + (s2+s6)) + ((s1+s5) + (s3+s7))
	FADDD F2, F0
	FADDD F3, F1
	FADDD F1, F0
	FADDD F22, F20
	FADDD F23, F21
	FADDD F21, F20
	FADDD F20, F0
	FMOVD F0, s+24(FP)
	RET

// func Dot32NEON(idx []int32, val []float32, w []float64) (s float64, ok bool)
TEXT ·Dot32NEON(SB), NOSPLIT, $0-81
	MOVD idx_base+0(FP), IDX
	MOVD idx_len+8(FP), N
	MOVD val_base+24(FP), VAL
	MOVD val_len+32(FP), T
	MOVD w_base+48(FP), W
	MOVD w_len+56(FP), LIM
	CLAMP_N_LIM
	FMOVD ZR, F0
	FMOVD ZR, F1
	FMOVD ZR, F2
	FMOVD ZR, F3
	FMOVD ZR, F4
	FMOVD ZR, F5
	FMOVD ZR, F6
	FMOVD ZR, F7

	CMP $8, N
	BLT d32tail

d32loop8:
	LDPW   (IDX), (R6, R7)
	LDPW   8(IDX), (R8, R9)
	LDPW   16(IDX), (R10, R11)
	LDPW   24(IDX), (R12, R13)
	CHECK(R6, d32bad)
	CHECK(R7, d32bad)
	CHECK(R8, d32bad)
	CHECK(R9, d32bad)
	CHECK(R10, d32bad)
	CHECK(R11, d32bad)
	CHECK(R12, d32bad)
	CHECK(R13, d32bad)
	FMOVD  (W)(R6<<3), F16
	FMOVD  (W)(R7<<3), F17
	FMOVD  (W)(R8<<3), F18
	FMOVD  (W)(R9<<3), F19
	FMOVD  (W)(R10<<3), F20
	FMOVD  (W)(R11<<3), F21
	FMOVD  (W)(R12<<3), F22
	FMOVD  (W)(R13<<3), F23
	FLDPS  (VAL), (F24, F25)
	FLDPS  8(VAL), (F26, F27)
	FLDPS  16(VAL), (F28, F29)
	FLDPS  24(VAL), (F30, F31)
	FCVTSD F24, F24
	FCVTSD F25, F25
	FCVTSD F26, F26
	FCVTSD F27, F27
	FCVTSD F28, F28
	FCVTSD F29, F29
	FCVTSD F30, F30
	FCVTSD F31, F31
	FMADDD F24, F0, F16, F0
	FMADDD F25, F1, F17, F1
	FMADDD F26, F2, F18, F2
	FMADDD F27, F3, F19, F3
	FMADDD F28, F4, F20, F4
	FMADDD F29, F5, F21, F5
	FMADDD F30, F6, F22, F6
	FMADDD F31, F7, F23, F7
	ADD    $32, IDX
	ADD    $32, VAL
	SUB    $8, N
	CMP    $8, N
	BGE    d32loop8

d32tail:
	CBZ N, d32sum
	DOT32_1(F0, d32bad)
	CBZ N, d32sum
	DOT32_1(F1, d32bad)
	CBZ N, d32sum
	DOT32_1(F2, d32bad)
	CBZ N, d32sum
	DOT32_1(F3, d32bad)
	CBZ N, d32sum
	DOT32_1(F4, d32bad)
	CBZ N, d32sum
	DOT32_1(F5, d32bad)
	CBZ N, d32sum
	DOT32_1(F6, d32bad)

d32sum:
	SUM8
	FMOVD F0, s+72(FP)
	MOVD  $1, T
	MOVB  T, ok+80(FP)
	RET

d32bad:
	MOVD ZR, s+72(FP)
	MOVB ZR, ok+80(FP)
	RET

// func Axpy32NEON(a float64, idx []int32, val []float32, w []float64) (ok bool)
TEXT ·Axpy32NEON(SB), NOSPLIT, $0-81
	FMOVD a+0(FP), FA
	MOVD  idx_base+8(FP), IDX
	MOVD  idx_len+16(FP), N
	MOVD  val_base+32(FP), VAL
	MOVD  val_len+40(FP), T
	MOVD  w_base+56(FP), W
	MOVD  w_len+64(FP), LIM
	CLAMP_N_LIM

	CMP $4, N
	BLT a32tail

a32loop4:
	LDPW   (IDX), (R6, R7)
	LDPW   8(IDX), (R8, R9)
	FLDPS  (VAL), (F16, F17)
	FLDPS  8(VAL), (F18, F19)
	FCVTSD F16, F16
	FCVTSD F17, F17
	FCVTSD F18, F18
	FCVTSD F19, F19
	AXPY2(R6, R7, F16, F17, F0, F1, a32bad)
	AXPY2(R8, R9, F18, F19, F2, F3, a32bad)
	ADD    $16, IDX
	ADD    $16, VAL
	SUB    $4, N
	CMP    $4, N
	BGE    a32loop4

a32tail:
	CBZ N, a32done

a32loop1:
	MOVWU.P 4(IDX), R6
	CHECK(R6, a32bad)
	FMOVS.P 4(VAL), F16
	FCVTSD  F16, F16
	FMOVD   (W)(R6<<3), F0
	FMADDD  F16, F0, FA, F0
	FMOVD   F0, (W)(R6<<3)
	SUB     $1, N
	CBNZ    N, a32loop1

a32done:
	MOVD $1, T
	MOVB T, ok+80(FP)
	RET

a32bad:
	MOVB ZR, ok+80(FP)
	RET
