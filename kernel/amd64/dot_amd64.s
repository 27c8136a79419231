//go:build !purego

#include "textflag.h"

// Register names shared by the index kernels in this file.
#define IDX SI // &idx[k]
#define VAL DI // &val[k]
#define W   DX // &w[0]
#define N   CX // elements left
#define LIM BX // min(len(w), 1<<31): j is in range iff uint32(j) < LIM
#define T   R8 // scratch

#define YLIM Y15 // LIM in each 64-bit lane
#define XLIM X15
#define YOK  Y14 // AND of every in-range mask seen
#define XTL  X12 // scalar accumulator of the tail loop

// CLAMP_N_LIM turns N = len(idx), T = len(val), LIM = len(w) into
// N = min(len(idx), len(val)) and LIM = min(len(w), 1<<31).
#define CLAMP_N_LIM \
	CMPQ    T, N         \
	CMOVQLT T, N         \
	MOVQ    $0x80000000, T \
	CMPQ    LIM, T       \
	CMOVQHI T, LIM

// GATHER_FMA handles the four indices at ioff(IDX) and values at
// voff(VAL): zero-extend the indices to 64 bits, mask = LIM > j (false
// for a negative j), gather the in-range w[j] into G (zeroed first, to
// break the dependency on its old value) and accumulate val*G into ACC.
// I, M and G are scratch registers.
#define GATHER_FMA(ioff, voff, I, M, G, ACC) \
	VPMOVZXDQ   ioff(IDX), I     \
	VPCMPGTQ    I, YLIM, M       \
	VPAND       M, YOK, YOK      \
	VXORPD      G, G, G          \
	VGATHERQPD  M, (W)(I*8), G   \
	VFMADD231PD voff(VAL), G, ACC

// func DotAVX2(idx []int32, val []float64, w []float64) (s float64, ok bool)
TEXT ·DotAVX2(SB), NOSPLIT, $0-81
	MOVQ idx_base+0(FP), IDX
	MOVQ idx_len+8(FP), N
	MOVQ val_base+24(FP), VAL
	MOVQ val_len+32(FP), T
	MOVQ w_base+48(FP), W
	MOVQ w_len+56(FP), LIM
	CLAMP_N_LIM

	VXORPD    Y0, Y0, Y0
	VXORPD    Y1, Y1, Y1
	VXORPD    Y2, Y2, Y2
	VXORPD    Y3, Y3, Y3
	VXORPD    XTL, XTL, XTL
	VMOVQ     LIM, XLIM
	VPBROADCASTQ XLIM, YLIM
	VPCMPEQQ  YOK, YOK, YOK

	CMPQ N, $16
	JB   dotrest

dot16:
	GATHER_FMA(0, 0, Y4, Y5, Y6, Y0)
	GATHER_FMA(16, 32, Y7, Y8, Y9, Y1)
	GATHER_FMA(32, 64, Y4, Y5, Y6, Y2)
	GATHER_FMA(48, 96, Y7, Y8, Y9, Y3)
	ADDQ $64, IDX
	ADDQ $128, VAL
	SUBQ $16, N
	CMPQ N, $16
	JAE  dot16

dotrest:
	// 0..15 left: whole groups of 4 go to separate accumulators, so
	// that short vectors do not wait on a chain of FMAs.
	CMPQ N, $4
	JB   dottail
	GATHER_FMA(0, 0, Y4, Y5, Y6, Y0)
	CMPQ N, $8
	JB   dot4
	GATHER_FMA(16, 32, Y7, Y8, Y9, Y1)
	CMPQ N, $12
	JB   dot8
	GATHER_FMA(32, 64, Y4, Y5, Y6, Y2)
	ADDQ $48, IDX
	ADDQ $96, VAL
	SUBQ $12, N
	JMP  dottail

dot8:
	ADDQ $32, IDX
	ADDQ $64, VAL
	SUBQ $8, N
	JMP  dottail

dot4:
	ADDQ $16, IDX
	ADDQ $32, VAL
	SUBQ $4, N

dottail:
	TESTQ N, N
	JE    dotsum

dot1:
	MOVL        (IDX), T // zero-extends: a negative j becomes >= 1<<31
	CMPQ        T, LIM
	JAE         dotbad
	VMOVSD      (W)(T*8), X4
	VFMADD231SD (VAL), X4, XTL
	ADDQ        $4, IDX
	ADDQ        $8, VAL
	DECQ        N
	JNE         dot1

dotsum:
	VMOVMSKPD YOK, T
	CMPQ      T, $15
	JNE       dotbad
	VADDPD    Y1, Y0, Y0
	VADDPD    Y3, Y2, Y2
	VADDPD    Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD    X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD    X1, X0, X0
	VADDSD    XTL, X0, X0
	VZEROUPPER
	MOVSD     X0, s+72(FP)
	MOVB      $1, ok+80(FP)
	RET

dotbad:
	VZEROUPPER
	MOVQ $0, s+72(FP)
	MOVB $0, ok+80(FP)
	RET

// GATHER_FMA32 is GATHER_FMA with four float32 values
// widened to float64 (V is a scratch register).
#define GATHER_FMA32(ioff, voff, I, M, G, V, ACC) \
	VPMOVZXDQ   ioff(IDX), I     \
	VPCMPGTQ    I, YLIM, M       \
	VPAND       M, YOK, YOK      \
	VXORPD      G, G, G          \
	VGATHERQPD  M, (W)(I*8), G   \
	VCVTPS2PD   voff(VAL), V     \
	VFMADD231PD V, G, ACC

// func Dot32AVX2(idx []int32, val []float32, w []float64) (s float64, ok bool)
TEXT ·Dot32AVX2(SB), NOSPLIT, $0-81
	MOVQ idx_base+0(FP), IDX
	MOVQ idx_len+8(FP), N
	MOVQ val_base+24(FP), VAL
	MOVQ val_len+32(FP), T
	MOVQ w_base+48(FP), W
	MOVQ w_len+56(FP), LIM
	CLAMP_N_LIM

	VXORPD    Y0, Y0, Y0
	VXORPD    Y1, Y1, Y1
	VXORPD    Y2, Y2, Y2
	VXORPD    Y3, Y3, Y3
	VXORPD    XTL, XTL, XTL
	VMOVQ     LIM, XLIM
	VPBROADCASTQ XLIM, YLIM
	VPCMPEQQ  YOK, YOK, YOK

	CMPQ N, $16
	JB   dotrest

dot16:
	GATHER_FMA32(0, 0, Y4, Y5, Y6, Y10, Y0)
	GATHER_FMA32(16, 16, Y7, Y8, Y9, Y11, Y1)
	GATHER_FMA32(32, 32, Y4, Y5, Y6, Y10, Y2)
	GATHER_FMA32(48, 48, Y7, Y8, Y9, Y11, Y3)
	ADDQ $64, IDX
	ADDQ $64, VAL
	SUBQ $16, N
	CMPQ N, $16
	JAE  dot16

dotrest:
	CMPQ N, $4
	JB   dottail
	GATHER_FMA32(0, 0, Y4, Y5, Y6, Y10, Y0)
	CMPQ N, $8
	JB   dot4
	GATHER_FMA32(16, 16, Y7, Y8, Y9, Y11, Y1)
	CMPQ N, $12
	JB   dot8
	GATHER_FMA32(32, 32, Y4, Y5, Y6, Y10, Y2)
	ADDQ $48, IDX
	ADDQ $48, VAL
	SUBQ $12, N
	JMP  dottail

dot8:
	ADDQ $32, IDX
	ADDQ $32, VAL
	SUBQ $8, N
	JMP  dottail

dot4:
	ADDQ $16, IDX
	ADDQ $16, VAL
	SUBQ $4, N

dottail:
	TESTQ N, N
	JE    dotsum

dot1:
	MOVL        (IDX), T
	CMPQ        T, LIM
	JAE         dotbad
	VMOVSS      (VAL), X5
	VCVTSS2SD   X5, X5, X5
	VFMADD231SD (W)(T*8), X5, XTL
	ADDQ        $4, IDX
	ADDQ        $4, VAL
	DECQ        N
	JNE         dot1

dotsum:
	VMOVMSKPD YOK, T
	CMPQ      T, $15
	JNE       dotbad
	VADDPD    Y1, Y0, Y0
	VADDPD    Y3, Y2, Y2
	VADDPD    Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD    X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD    X1, X0, X0
	VADDSD    XTL, X0, X0
	VZEROUPPER
	MOVSD     X0, s+72(FP)
	MOVB      $1, ok+80(FP)
	RET

dotbad:
	VZEROUPPER
	MOVQ $0, s+72(FP)
	MOVB $0, ok+80(FP)
	RET
