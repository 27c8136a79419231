#include "textflag.h"

// func prefetchRow(idx unsafe.Pointer, nidx uintptr, val unsafe.Pointer, nval uintptr)
// Issues PRFM PLDL1KEEP for every 64-byte line of [idx, idx+nidx) and [val, val+nval).
TEXT ·prefetchRow(SB), NOSPLIT|NOFRAME, $0-32
	MOVD idx+0(FP), R0
	MOVD nidx+8(FP), R1
	MOVD val+16(FP), R2
	MOVD nval+24(FP), R3
	ADD  R0, R1, R1
loopi:
	CMP  R1, R0
	BHS  vals
	PRFM (R0), PLDL1KEEP
	ADD  $64, R0, R0
	B    loopi
vals:
	ADD  R2, R3, R3
loopv:
	CMP  R3, R2
	BHS  done
	PRFM (R2), PLDL1KEEP
	ADD  $64, R2, R2
	B    loopv
done:
	RET
