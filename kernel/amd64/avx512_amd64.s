//go:build !purego

#include "textflag.h"

// AVX-512 (F + VL) kernels. See stubs_amd64.go for what each computes.
// One 8-lane accumulator holds the eight partial sums of package kernel's
// generic code (lane l gets the elements k with k mod 8 = l); a last group
// of 1 to 7 elements is loaded and accumulated under a mask, merge-masking
// leaving the dead lanes' partial sums exactly as they were; the lanes are
// combined in the generic code's tree. The results are bit for bit the
// generic ones.
// There is no AVX-512 Axpy: a scatter version did not pay (measurements:
// docs/tuning.md) and, unlike AxpyAVX2, would lose an update when a group
// of 8 repeats an index.

#define IDX SI // &idx[k]
#define VAL DI // &val[k]
#define W   DX // &w[0]
#define N   CX // elements left
#define LIM BX // min(len(w), 1<<31): j is in range iff uint32(j) < LIM
#define T   R8 // scratch

#define YLIM Y15 // LIM in each 32-bit lane
#define XLIM X15
#define KOK  K7  // AND of every in-range mask seen

#define CLAMP_N_LIM \
	CMPQ    T, N         \
	CMOVQLT T, N         \
	MOVQ    $0x80000000, T \
	CMPQ    LIM, T       \
	CMOVQHI T, LIM

// GATHER8(ioff, voff, I, G, ACC): eight indices into I, K1 = in-range
// lanes (uint32(j) < LIM, false for a negative j), gather those w[j] into
// G and accumulate val*G into ACC.
#define GATHER8(ioff, voff, I, G, ACC) \
	VMOVDQU     ioff(IDX), I        \
	VPCMPUD     $1, YLIM, I, K1     \
	KANDW       K1, KOK, KOK        \
	VPXORQ      G, G, G             \
	VGATHERDPD  (W)(I*8), K1, G     \
	VFMADD231PD voff(VAL), G, ACC

// TAIL8(LOADV) accumulates the 1..7 elements left into Z0: K2 =
// (1<<N)-1 selects them. Masked-off lanes are neither loaded nor faulted
// on; they load as index 0, which passes the range check unless
// len(w) == 0, and then the live lanes fail. LOADV puts the live values
// into Z6.
#define TAIL8(LOADV) \
	MOVL        $1, T                  \
	SHLL        CX, T                  \
	DECL        T                      \
	KMOVW       T, K2                  \
	VMOVDQU32.Z (IDX), K2, Y4          \
	VPCMPUD     $1, YLIM, Y4, K1       \
	KANDW       K1, KOK, KOK           \
	KANDW       K2, K1, K1             \
	VPXORQ      Z5, Z5, Z5             \
	VGATHERDPD  (W)(Y4*8), K1, Z5      \
	LOADV                              \
	VFMADD231PD Z6, Z5, K2, Z0

#define LOADV64 VMOVUPD.Z (VAL), K2, Z6
#define LOADV32 VMOVUPS.Z (VAL), K2, Y6; VCVTPS2PD Y6, Z6

// SUM8 combines the eight lanes of Z0 into X0:
// ((s0+s4) + (s2+s6)) + ((s1+s5) + (s3+s7)).
#define SUM8 \
	VEXTRACTF64X4 $1, Z0, Y1 \
	VADDPD        Y1, Y0, Y0 \
	VEXTRACTF128  $1, Y0, X1 \
	VADDPD        X1, X0, X0 \
	VUNPCKHPD     X0, X0, X1 \
	VADDSD        X1, X0, X0

// func DotAVX512(idx []int32, val []float64, w []float64) (s float64, ok bool)
TEXT ·DotAVX512(SB), NOSPLIT, $0-81
	MOVQ idx_base+0(FP), IDX
	MOVQ idx_len+8(FP), N
	MOVQ val_base+24(FP), VAL
	MOVQ val_len+32(FP), T
	MOVQ w_base+48(FP), W
	MOVQ w_len+56(FP), LIM
	CLAMP_N_LIM

	VPXORQ       Z0, Z0, Z0
	VPBROADCASTD LIM, YLIM
	MOVL         $0xff, T
	KMOVW        T, KOK

	CMPQ N, $16
	JB   dot8

dot16:
	GATHER8(0, 0, Y4, Z5, Z0)
	GATHER8(32, 64, Y6, Z7, Z0)
	ADDQ $64, IDX
	ADDQ $128, VAL
	SUBQ $16, N
	CMPQ N, $16
	JAE  dot16

dot8:
	CMPQ N, $8
	JB   dottail
	GATHER8(0, 0, Y4, Z5, Z0)
	ADDQ $32, IDX
	ADDQ $64, VAL
	SUBQ $8, N

dottail:
	TESTQ N, N
	JE    dotsum
	TAIL8(LOADV64)

dotsum:
	KMOVW     KOK, T
	CMPL      T, $0xff
	JNE       dotbad
	SUM8
	VZEROUPPER
	MOVSD     X0, s+72(FP)
	MOVB      $1, ok+80(FP)
	RET

dotbad:
	VZEROUPPER
	MOVQ $0, s+72(FP)
	MOVB $0, ok+80(FP)
	RET

// GATHER8_32 is GATHER8 with eight float32 values widened to float64
// (V is a scratch register).
#define GATHER8_32(ioff, voff, I, G, V, ACC) \
	VMOVDQU     ioff(IDX), I        \
	VPCMPUD     $1, YLIM, I, K1     \
	KANDW       K1, KOK, KOK        \
	VPXORQ      G, G, G             \
	VGATHERDPD  (W)(I*8), K1, G     \
	VCVTPS2PD   voff(VAL), V        \
	VFMADD231PD V, G, ACC

// func Dot32AVX512(idx []int32, val []float32, w []float64) (s float64, ok bool)
TEXT ·Dot32AVX512(SB), NOSPLIT, $0-81
	MOVQ idx_base+0(FP), IDX
	MOVQ idx_len+8(FP), N
	MOVQ val_base+24(FP), VAL
	MOVQ val_len+32(FP), T
	MOVQ w_base+48(FP), W
	MOVQ w_len+56(FP), LIM
	CLAMP_N_LIM

	VPXORQ       Z0, Z0, Z0
	VPBROADCASTD LIM, YLIM
	MOVL         $0xff, T
	KMOVW        T, KOK

	CMPQ N, $16
	JB   dot8

dot16:
	GATHER8_32(0, 0, Y4, Z5, Z12, Z0)
	GATHER8_32(32, 32, Y6, Z7, Z13, Z0)
	ADDQ $64, IDX
	ADDQ $64, VAL
	SUBQ $16, N
	CMPQ N, $16
	JAE  dot16

dot8:
	CMPQ N, $8
	JB   dottail
	GATHER8_32(0, 0, Y4, Z5, Z12, Z0)
	ADDQ $32, IDX
	ADDQ $32, VAL
	SUBQ $8, N

dottail:
	TESTQ N, N
	JE    dotsum
	TAIL8(LOADV32)

dotsum:
	KMOVW     KOK, T
	CMPL      T, $0xff
	JNE       dotbad
	SUM8
	VZEROUPPER
	MOVSD     X0, s+72(FP)
	MOVB      $1, ok+80(FP)
	RET

dotbad:
	VZEROUPPER
	MOVQ $0, s+72(FP)
	MOVB $0, ok+80(FP)
	RET

// func SqNormAVX512(val []float64) (s float64)
TEXT ·SqNormAVX512(SB), NOSPLIT, $0-32
	MOVQ val_base+0(FP), VAL
	MOVQ val_len+8(FP), N
	VPXORQ Z0, Z0, Z0

	CMPQ N, $16
	JB   sq8

sq16:
	VMOVUPD     0(VAL), Z4
	VMOVUPD     64(VAL), Z5
	VFMADD231PD Z4, Z4, Z0
	VFMADD231PD Z5, Z5, Z0
	ADDQ        $128, VAL
	SUBQ        $16, N
	CMPQ        N, $16
	JAE         sq16

sq8:
	CMPQ        N, $8
	JB          sqtail
	VMOVUPD     0(VAL), Z4
	VFMADD231PD Z4, Z4, Z0
	ADDQ        $64, VAL
	SUBQ        $8, N

sqtail:
	TESTQ       N, N
	JE          sqsum
	MOVL        $1, T
	SHLL        CX, T
	DECL        T
	KMOVW       T, K1
	VMOVUPD.Z   (VAL), K1, Z4
	VFMADD231PD Z4, Z4, K1, Z0

sqsum:
	SUM8
	VZEROUPPER
	MOVSD X0, s+24(FP)
	RET
