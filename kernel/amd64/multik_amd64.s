//go:build !purego

#include "textflag.h"

// Multi-class kernels: K weight vectors stored feature-major, row j of W
// is W[j*K : j*K+K]. Both process the columns in blocks of up to 16 (four
// YMM registers); the lanes of a block past K are masked off with
// VMASKMOVPD, which neither loads, stores nor faults on them. The number
// of live 4-lane groups G in a block (1..4) selects one of four loops.

// iota<> holds 0, 1, ..., 15: lane l of the block is live iff l < nb.
DATA iota<>+0(SB)/8, $0
DATA iota<>+8(SB)/8, $1
DATA iota<>+16(SB)/8, $2
DATA iota<>+24(SB)/8, $3
DATA iota<>+32(SB)/8, $4
DATA iota<>+40(SB)/8, $5
DATA iota<>+48(SB)/8, $6
DATA iota<>+56(SB)/8, $7
DATA iota<>+64(SB)/8, $8
DATA iota<>+72(SB)/8, $9
DATA iota<>+80(SB)/8, $10
DATA iota<>+88(SB)/8, $11
DATA iota<>+96(SB)/8, $12
DATA iota<>+104(SB)/8, $13
DATA iota<>+112(SB)/8, $14
DATA iota<>+120(SB)/8, $15
GLOBL iota<>(SB), RODATA|NOPTR, $128

#define IDX SI  // &idx[k]
#define VAL DI  // &val[k]
#define WC  DX  // &W[c0]: row j of the block starts at WC + j*K8
#define CNT CX  // rows left in this block's pass
#define LIM BX  // min(len(W)/K, 1<<31)
#define REM AX  // columns left, K - c0
#define K8  R12 // K*8
#define OUT R13 // &out[c0] (DotK) or &coef[c0] (AxpyK)
#define NB  R8  // columns in this block, min(16, REM)

#define M0 Y8 // lane masks of the four groups
#define M1 Y9
#define M2 Y10
#define M3 Y11
#define YV Y12 // val[k] in every lane
#define YT Y13 // scratch
#define YU Y14 // scratch

// SETUP_BLOCK sets NB and the masks for the block at c0.
#define SETUP_BLOCK \
	MOVQ         REM, NB            \
	MOVL         $16, R9            \
	CMPQ         NB, R9             \
	CMOVQHI      R9, NB             \
	VMOVQ        NB, X12            \
	VPBROADCASTQ X12, YV            \
	VPCMPGTQ     iota<>+0(SB), YV, M0  \
	VPCMPGTQ     iota<>+32(SB), YV, M1 \
	VPCMPGTQ     iota<>+64(SB), YV, M2 \
	VPCMPGTQ     iota<>+96(SB), YV, M3

// ROWADDR(ioff, J, bad): J = byte offset of row idx[k] from WC, after
// checking idx[k] < LIM.
#define ROWADDR(ioff, J, bad) \
	MOVL  ioff(IDX), J \
	CMPQ  J, LIM       \
	JAE   bad          \
	IMULQ K8, J

// DK1..DK4 accumulate val[k] * row into one to four group accumulators.
#define DK1(ioff, voff, J, A0, bad) \
	ROWADDR(ioff, J, bad)                  \
	VBROADCASTSD voff(VAL), YV             \
	VMASKMOVPD   (WC)(J*1), M0, YT         \
	VFMADD231PD  YT, YV, A0

#define DK2(ioff, voff, J, A0, A1, bad) \
	DK1(ioff, voff, J, A0, bad)            \
	VMASKMOVPD   32(WC)(J*1), M1, YT       \
	VFMADD231PD  YT, YV, A1

#define DK3(ioff, voff, J, A0, A1, A2, bad) \
	DK2(ioff, voff, J, A0, A1, bad)        \
	VMASKMOVPD   64(WC)(J*1), M2, YT       \
	VFMADD231PD  YT, YV, A2

#define DK4(ioff, voff, J, A0, A1, A2, A3, bad) \
	DK3(ioff, voff, J, A0, A1, A2, bad)    \
	VMASKMOVPD   96(WC)(J*1), M3, YT       \
	VFMADD231PD  YT, YV, A3

// RESTART sets IDX, VAL and CNT = min(len(idx), len(val)) for a pass.
#define RESTART(idxb, idxl, valb, vall) \
	MOVQ    idxb, IDX  \
	MOVQ    idxl, CNT  \
	MOVQ    valb, VAL  \
	MOVQ    vall, R9   \
	CMPQ    R9, CNT    \
	CMOVQLT R9, CNT

// func DotKAVX2(idx []int32, val []float64, W []float64, K int, out []float64) (ok bool)
TEXT ·DotKAVX2(SB), NOSPLIT, $0-105
	MOVQ  K+72(FP), R9
	TESTQ R9, R9
	JLE   dkbad
	CMPQ  R9, out_len+88(FP)
	JHI   dkbad
	MOVQ  W_len+56(FP), AX
	XORL  DX, DX
	DIVQ  R9                      // AX = len(W)/K rows
	MOVQ  AX, LIM
	MOVQ  $0x80000000, R10
	CMPQ  LIM, R10
	CMOVQHI R10, LIM
	MOVQ  R9, K8
	SHLQ  $3, K8
	MOVQ  W_base+48(FP), WC
	MOVQ  out_base+80(FP), OUT
	MOVQ  R9, REM

dkblock:
	SETUP_BLOCK
	RESTART(idx_base+0(FP), idx_len+8(FP), val_base+24(FP), val_len+32(FP))
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	CMPQ NB, $4
	JBE  dkg1
	CMPQ NB, $8
	JBE  dkg2
	CMPQ NB, $12
	JBE  dkg3
	JMP  dkg4

	// G = 1: four rows per iteration, even rows into Y0 and odd rows
	// into Y1 (the two partial sums of package kernel's generic code).
dkg1:
	CMPQ CNT, $4
	JB   dkg1tail
	DK1(0, 0, R8, Y0, dkbad)
	DK1(4, 8, R9, Y1, dkbad)
	DK1(8, 16, R10, Y0, dkbad)
	DK1(12, 24, R11, Y1, dkbad)
	ADDQ $16, IDX
	ADDQ $32, VAL
	SUBQ $4, CNT
	JMP  dkg1

dkg1tail:
	// 0..3 rows left: the even, odd, even partial sums.
	TESTQ CNT, CNT
	JE    dkg1done
	DK1(0, 0, R8, Y0, dkbad)
	CMPQ  CNT, $2
	JB    dkg1done
	DK1(4, 8, R9, Y1, dkbad)
	CMPQ  CNT, $3
	JB    dkg1done
	DK1(8, 16, R10, Y0, dkbad)

dkg1done:
	VADDPD Y1, Y0, Y0
	JMP    dkstore

	// G = 2: two rows per iteration into Y0,Y1 and Y2,Y3.
dkg2:
	CMPQ CNT, $2
	JB   dkg2tail
	DK2(0, 0, R8, Y0, Y1, dkbad)
	DK2(4, 8, R9, Y2, Y3, dkbad)
	ADDQ $8, IDX
	ADDQ $16, VAL
	SUBQ $2, CNT
	JMP  dkg2

dkg2tail:
	TESTQ CNT, CNT
	JE    dkg2done
	DK2(0, 0, R8, Y0, Y1, dkbad)

dkg2done:
	VADDPD Y2, Y0, Y0
	VADDPD Y3, Y1, Y1
	JMP    dkstore

	// G = 3: two rows per iteration into Y0..Y2 and Y4..Y6.
dkg3:
	CMPQ CNT, $2
	JB   dkg3tail
	DK3(0, 0, R8, Y0, Y1, Y2, dkbad)
	DK3(4, 8, R9, Y4, Y5, Y6, dkbad)
	ADDQ $8, IDX
	ADDQ $16, VAL
	SUBQ $2, CNT
	JMP  dkg3

dkg3tail:
	TESTQ CNT, CNT
	JE    dkg34done
	DK3(0, 0, R8, Y0, Y1, Y2, dkbad)
	JMP   dkg34done

	// G = 4: two rows per iteration into Y0..Y3 and Y4..Y7.
dkg4:
	CMPQ CNT, $2
	JB   dkg4tail
	DK4(0, 0, R8, Y0, Y1, Y2, Y3, dkbad)
	DK4(4, 8, R9, Y4, Y5, Y6, Y7, dkbad)
	ADDQ $8, IDX
	ADDQ $16, VAL
	SUBQ $2, CNT
	JMP  dkg4

dkg4tail:
	TESTQ CNT, CNT
	JE    dkg34done
	DK4(0, 0, R8, Y0, Y1, Y2, Y3, dkbad)

dkg34done:
	VADDPD Y4, Y0, Y0
	VADDPD Y5, Y1, Y1
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3

dkstore:
	// Masked stores write exactly out[c0 : c0+NB]; a dead group's mask
	// is all zero.
	VMASKMOVPD Y0, M0, 0(OUT)
	VMASKMOVPD Y1, M1, 32(OUT)
	VMASKMOVPD Y2, M2, 64(OUT)
	VMASKMOVPD Y3, M3, 96(OUT)
	CMPQ REM, $16
	JBE  dkdone
	SUBQ $16, REM
	ADDQ $128, WC
	ADDQ $128, OUT
	JMP  dkblock

dkdone:
	VZEROUPPER
	MOVB $1, ok+104(FP)
	RET

dkbad:
	VZEROUPPER
	MOVB $0, ok+104(FP)
	RET

#define C0 Y4 // coef of the four groups
#define C1 Y5
#define C2 Y6
#define C3 Y7

// AK1..AK4 add coef*val[k] to one to four groups of row idx[k] with one
// fused multiply-add per element, as package kernel's generic loop.
#define AK1(ioff, voff, J, bad) \
	ROWADDR(ioff, J, bad)              \
	VBROADCASTSD voff(VAL), YV         \
	VMASKMOVPD   (WC)(J*1), M0, YU     \
	VFMADD231PD  C0, YV, YU            \
	VMASKMOVPD   YU, M0, (WC)(J*1)

#define AKG(goff, C, M, J) \
	VMASKMOVPD   goff(WC)(J*1), M, YU  \
	VFMADD231PD  C, YV, YU             \
	VMASKMOVPD   YU, M, goff(WC)(J*1)

#define AK2(ioff, voff, J, bad) \
	AK1(ioff, voff, J, bad) \
	AKG(32, C1, M1, J)

#define AK3(ioff, voff, J, bad) \
	AK2(ioff, voff, J, bad) \
	AKG(64, C2, M2, J)

#define AK4(ioff, voff, J, bad) \
	AK3(ioff, voff, J, bad) \
	AKG(96, C3, M3, J)

// func AxpyKAVX2(coef []float64, idx []int32, val []float64, W []float64, K int) (ok bool)
TEXT ·AxpyKAVX2(SB), NOSPLIT, $0-105
	MOVQ  K+96(FP), R9
	TESTQ R9, R9
	JLE   akbad
	CMPQ  R9, coef_len+8(FP)
	JHI   akbad
	MOVQ  W_len+80(FP), AX
	XORL  DX, DX
	DIVQ  R9
	MOVQ  AX, LIM
	MOVQ  $0x80000000, R10
	CMPQ  LIM, R10
	CMOVQHI R10, LIM
	MOVQ  R9, K8
	SHLQ  $3, K8
	MOVQ  W_base+72(FP), WC
	MOVQ  coef_base+0(FP), OUT
	MOVQ  R9, REM

akblock:
	SETUP_BLOCK
	RESTART(idx_base+24(FP), idx_len+32(FP), val_base+48(FP), val_len+56(FP))
	VMASKMOVPD 0(OUT), M0, C0
	VMASKMOVPD 32(OUT), M1, C1
	VMASKMOVPD 64(OUT), M2, C2
	VMASKMOVPD 96(OUT), M3, C3
	CMPQ NB, $4
	JBE  akg1
	CMPQ NB, $8
	JBE  akg2
	CMPQ NB, $12
	JBE  akg3
	JMP  akg4

akg1:
	CMPQ CNT, $2
	JB   akg1tail
	AK1(0, 0, R8, akbad)
	AK1(4, 8, R9, akbad)
	ADDQ $8, IDX
	ADDQ $16, VAL
	SUBQ $2, CNT
	JMP  akg1

akg1tail:
	TESTQ CNT, CNT
	JE    aknext
	AK1(0, 0, R8, akbad)
	JMP   aknext

akg2:
	TESTQ CNT, CNT
	JE    aknext
	AK2(0, 0, R8, akbad)
	ADDQ $4, IDX
	ADDQ $8, VAL
	DECQ CNT
	JMP  akg2

akg3:
	TESTQ CNT, CNT
	JE    aknext
	AK3(0, 0, R8, akbad)
	ADDQ $4, IDX
	ADDQ $8, VAL
	DECQ CNT
	JMP  akg3

akg4:
	TESTQ CNT, CNT
	JE    aknext
	AK4(0, 0, R8, akbad)
	ADDQ $4, IDX
	ADDQ $8, VAL
	DECQ CNT
	JMP  akg4

aknext:
	CMPQ REM, $16
	JBE  akdone
	SUBQ $16, REM
	ADDQ $128, WC
	ADDQ $128, OUT
	JMP  akblock

akdone:
	VZEROUPPER
	MOVB $1, ok+104(FP)
	RET

akbad:
	VZEROUPPER
	MOVB $0, ok+104(FP)
	RET
