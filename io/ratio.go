package dataio

import (
	"bufio"
	"fmt"
	"io"
	"math"
)

// DefaultMaxRatio is the most a compressed input may expand, as a multiple
// of its compressed size, when Options.MaxRatio is 0. Text data compresses
// far less: of the libsvm data sets in ../shared/data the most compressible,
// mushrooms.bz2, expands 55 times, most 3 to 25 times; a crafted gzip file
// expands up to 1032 times and a bzip2 file 10⁵ times and more.
const DefaultMaxRatio = 200

// minRatioText is the text a compressed input may always expand to, so
// that tiny files are never refused for their ratio.
const minRatioText = 1 << 20

// ratioGuard passes decompressed text through and stops it once it exceeds
// max times the compressed bytes behind it, so that a small file cannot
// make the reader hold (and the parser allocate for) far more text than
// its size suggests. The compressed count is the file's size when known,
// else the bytes read from the stream so far.
type ratioGuard struct {
	r    io.Reader    // decompressed
	in   *countReader // compressed
	size int64        // compressed size, 0 when unknown (a stream)
	max  int64
	via  string // the compression
	out  int64
	err  error // sticky
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// newRatioGuard returns the buffered reader decompress reads from, over
// r (of size bytes, 0 if unknown), and a function that puts the guard
// over the decompressed reader.
func newRatioGuard(r io.Reader, size int64, maxRatio int) (*bufio.Reader, func(zr io.Reader, via string) io.Reader) {
	if maxRatio <= 0 {
		maxRatio = DefaultMaxRatio
	}
	cr := &countReader{r: r}
	br := bufio.NewReaderSize(cr, 64<<10)
	return br, func(zr io.Reader, via string) io.Reader {
		return &ratioGuard{r: zr, in: cr, size: size, max: int64(maxRatio), via: via}
	}
}

func (g *ratioGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	g.out += int64(n)
	in := max(g.in.n, g.size)
	if in >= math.MaxInt64/g.max {
		return n, err // no limit that an int64 holds
	}
	if limit := max(g.max*in, minRatioText); g.out > limit {
		from := fmt.Sprintf("the first %d compressed bytes", in)
		if g.size > 0 {
			from = fmt.Sprintf("%d bytes", g.size)
		}
		g.err = &LimitError{Msg: fmt.Sprintf("%s-compressed input expands to more than %d times its size (more than %d bytes of text from %s), the limit for compressed input",
			g.via, g.max, limit, from), Hint: Hint{Option: "Options.MaxRatio"}}
		return 0, g.err
	}
	return n, err
}
