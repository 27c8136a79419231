//go:build !purego

package ndjson

import (
	"bytes"

	simdjson "github.com/minio/simdjson-go"
)

// simdjson-go builds on every platform: on amd64 it has its assembly, and
// elsewhere (or with the noasm tag) a stub whose SupportedCPU is false.
// The purego tag leaves it out altogether (nosimd.go).

// simdAvailable reports whether simdjson-go can run here (amd64 with AVX2
// and CLMUL).
func simdAvailable() bool { return simdjson.SupportedCPU() }

// simdChunkParser parses chunks with simdjson-go; one per goroutine, so
// that its buffers are reused from chunk to chunk.
type simdChunkParser struct {
	// reuse carries simdjson's buffers from chunk to chunk. A ParsedJson
	// returned by ParseND cannot be reused (it lacks the internal state;
	// one from Parse has it, but the next parse clears it in place), so
	// reuse is a copy of Parse's result that keeps the internal state, and
	// gets the grown tape and string buffers of every ParseND result
	// assigned back.
	reuse *simdjson.ParsedJson
	root  simdjson.Iter
	obj   simdjson.Object
	fobj  simdjson.Object
	elem  simdjson.Iter
	fe    simdjson.Iter
}

// parse appends the chunk's rows to b. It returns false, with b in an
// unspecified state, when the chunk is not valid input or may not be
// parsed exactly as the scanner would; the caller then runs the scanner,
// which reports the error.
func (p *simdChunkParser) parse(chunk []byte, b *ndBuilder) bool {
	t := trimJSONSpace(chunk)
	if len(t) == 0 {
		return true
	}
	// Where simdjson-go is more lenient than JSON, leave the chunk to the
	// scanner: ParseND trims Unicode white space (\v, \f, U+0085, U+00A0,
	// ...) at the ends, accepts "-0" followed by digits (as in -01.5), and
	// decodes malformed \u escapes ("\u 061" as "a"). Valid input needs
	// no escapes (keys are digits or three plain names), so any backslash
	// sends the chunk to the scanner.
	if len(bytes.TrimSpace(t)) != len(t) || bytes.IndexByte(t, '\\') >= 0 || hasNegLeadingZero(t) {
		return false
	}
	if p.reuse == nil {
		if first, err := simdjson.Parse([]byte(`{}`), nil); err == nil {
			cp := *first
			p.reuse = &cp
		}
	}
	pj, err := simdjson.ParseND(t, p.reuse, simdjson.WithCopyStrings(false))
	if err != nil {
		return false
	}
	if p.reuse != nil {
		p.reuse.Tape, p.reuse.Strings = pj.Tape, pj.Strings
	}
	// In ND mode simdjson requires a newline after every root and rejects
	// one inside a value (strings cannot hold raw control characters), so
	// root k is the k-th non-blank line.
	it := pj.Iter()
	for {
		typ, err := it.AdvanceIter(&p.root)
		if err != nil {
			return false
		}
		if typ == simdjson.TypeNone {
			return true
		}
		if typ != simdjson.TypeRoot || p.root.AdvanceInto() != simdjson.TagObjectStart {
			return false
		}
		obj, err := p.root.Object(&p.obj)
		if err != nil {
			return false
		}
		var label float64
		var qid int64
		haveLabel, haveQID, haveFeatures := false, false, false
		for {
			name, typ, err := obj.NextElementBytes(&p.elem)
			if err != nil {
				return false
			}
			if typ == simdjson.TypeNone {
				break
			}
			switch string(name) {
			case "label":
				if haveLabel || !isSIMDNumber(typ) {
					return false
				}
				haveLabel = true
				if label, err = p.elem.Float(); err != nil {
					return false
				}
			case "qid":
				if haveQID || typ != simdjson.TypeInt {
					return false
				}
				haveQID = true
				if qid, err = p.elem.Int(); err != nil {
					return false
				}
			case "features":
				if haveFeatures || typ != simdjson.TypeObject || !p.features(b) {
					return false
				}
				haveFeatures = true
			default:
				return false
			}
		}
		if !haveLabel || b.endRow(label, qid, haveQID) >= 0 {
			return false
		}
	}
}

func (p *simdChunkParser) features(b *ndBuilder) bool {
	fobj, err := p.elem.Object(&p.fobj)
	if err != nil {
		return false
	}
	for {
		key, typ, err := fobj.NextElementBytes(&p.fe)
		if err != nil {
			return false
		}
		if typ == simdjson.TypeNone {
			return true
		}
		if !isSIMDNumber(typ) {
			return false
		}
		j, msg := b.index(key)
		if msg != "" {
			return false
		}
		v, err := p.fe.Float()
		if err != nil || b.add(j, v) != addOK {
			return false
		}
	}
}

func isSIMDNumber(t simdjson.Type) bool {
	return t == simdjson.TypeInt || t == simdjson.TypeUint || t == simdjson.TypeFloat
}

// trimJSONSpace trims JSON white space (and newlines) at both ends.
func trimJSONSpace(b []byte) []byte {
	isWS := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	for len(b) > 0 && isWS(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isWS(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// hasNegLeadingZero reports whether b holds '-', '0' and a digit in a row,
// other than in an exponent (1e-05 is fine).
func hasNegLeadingZero(b []byte) bool {
	for i := 0; ; {
		k := bytes.IndexByte(b[i:], '-')
		if k < 0 {
			return false
		}
		i += k + 1
		if i+1 < len(b) && b[i] == '0' && b[i+1] >= '0' && b[i+1] <= '9' &&
			(i < 2 || b[i-2] != 'e' && b[i-2] != 'E') {
			return true
		}
	}
}
