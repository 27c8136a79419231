package dataio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"

	"github.com/acfcd/acfcd/io/internal/cache"
)

// Load reads a dataset from path; "-" means standard input.
//
// A regular file is memory-mapped, parsed in parallel and unmapped again,
// so that once Load returns only the CSR arrays stay in memory. Pipes,
// devices and standard input are read into memory first (see Read).
// gzip and bzip2 input is recognised by its magic bytes, whatever the file
// name, and decompressed on the fly. Unless opt.Format says otherwise the
// format is detected from the content: an acfcd binary cache by its
// header, NDJSON when the first non-blank byte is '{', and libsvm text
// otherwise.
//
// Syntax problems are reported as *ParseError; an input without rows gives
// an error wrapping ErrNoData.
func Load(path string, opt Options) (*Dataset, error) {
	d, err := load(path, opt)
	if err != nil {
		return nil, err
	}
	d.MaxFeatures = max(opt.MaxFeatures, 0)
	if path != "-" {
		format := opt.Format
		d.locate = func(row int) (int, bool) { return lineOfRow(path, format, row) }
	}
	return d, nil
}

func load(path string, opt Options) (*Dataset, error) {
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	if path == "-" {
		return loadStdin(opt)
	}
	if opt.Format == "cache" {
		return openCache(path, opt)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a data file", path)
	}
	if !st.Mode().IsRegular() || st.Size() == 0 {
		// Pipes and devices have no size to map; some special files
		// (/proc) claim a size of 0 but still have content.
		return readText(f, path, 0, opt)
	}
	return loadFile(f, path, path, st.Size(), opt)
}

// loadStdin maps standard input when it is redirected from a regular file
// and reads it as a stream otherwise.
func loadStdin(opt Options) (*Dataset, error) {
	const name = "stdin"
	st, err := os.Stdin.Stat()
	if err == nil && st.Mode().IsRegular() && st.Size() > 0 {
		if off, err := os.Stdin.Seek(0, io.SeekCurrent); err == nil && off == 0 {
			return loadFile(os.Stdin, name, "", st.Size(), opt)
		}
	}
	return Read(os.Stdin, name, opt)
}

// loadFile reads a non-empty regular file. path is "" when the file has no
// name to reopen it by (standard input).
func loadFile(f *os.File, name, path string, size int64, opt Options) (*Dataset, error) {
	head := make([]byte, headBytes)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	head = head[:n]
	if n == 0 {
		return nil, fmt.Errorf("%s: empty file: %w", name, ErrNoData)
	}
	if compressionOf(head) != "" {
		return readText(io.NewSectionReader(f, 0, size), name, size, opt)
	}
	switch detectFormat(head, opt) {
	case "cache":
		if path == "" {
			return nil, fmt.Errorf("%s: a binary cache must be loaded by its path, not through standard input", name)
		}
		return openCache(path, opt)
	case "ndjson":
		// Read into the Go heap rather than mapping: the dataset must not
		// point into a mapping we are about to remove.
		data := make([]byte, size)
		if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), data); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return parseNDJSON(name, data, opt)
	}
	data, release, err := mapFile(f, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer release()
	return parseMapped(name, data, opt)
}

// Read reads a dataset from r, which may be gzip or bzip2 compressed;
// name is used in messages and as Dataset.Source. libsvm text is read into
// blocks of memory outside the Go heap, parsed in parallel, and the blocks
// are released before Read returns. A binary cache cannot be read from a
// stream; use Load with its path.
func Read(r io.Reader, name string, opt Options) (*Dataset, error) {
	if r == nil {
		return nil, fmt.Errorf("%s: nil reader", name)
	}
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	d, err := readText(r, name, 0, opt)
	if err != nil {
		return nil, err
	}
	d.MaxFeatures = max(opt.MaxFeatures, 0)
	return d, nil
}

// headBytes is how much of the input format detection looks at.
const headBytes = 4096

// readText reads a stream, decompressing it first if it starts with a
// compression magic number, within opt.MaxRatio times size (the size of
// the file r reads, or 0 for a stream of unknown size).
func readText(r io.Reader, name string, size int64, opt Options) (*Dataset, error) {
	g, format, via, err := openText(r, name, size, opt)
	if err != nil {
		return nil, err
	}
	if format == "ndjson" {
		data, err := io.ReadAll(g)
		if err != nil {
			return nil, streamError(name, err)
		}
		return parseNDJSON(name, data, opt)
	}
	chunks, blocks, err := readBlocks(g, streamBlockBytes)
	defer func() {
		for _, b := range blocks {
			freeBlock(b)
		}
	}()
	if err != nil {
		return nil, streamError(name, err)
	}
	d, err := parseLibSVM(name, chunks, opt)
	if err != nil && via != "" && errors.Is(err, ErrNoData) {
		return nil, fmt.Errorf("%w (after %s decompression)", err, via)
	}
	return d, err
}

// openText returns the text of the stream r (of size bytes, 0 if unknown):
// decompressed within opt.MaxRatio when it starts with a compression magic
// number, behind the line guard. It names the format (libsvm or ndjson)
// and the decompression undone ("" for none).
func openText(r io.Reader, name string, size int64, opt Options) (text io.Reader, format, via string, err error) {
	br, ratio := newRatioGuard(r, size, opt.MaxRatio)
	head, err := peekHead(br, name, "")
	if err != nil {
		return nil, "", "", err
	}
	zr, via, err := decompress(br, head)
	if err != nil {
		return nil, "", "", fmt.Errorf("%s: %w", name, err)
	}
	if via != "" {
		br = bufio.NewReaderSize(ratio(zr, via), 64<<10)
		if head, err = peekHead(br, name, via); err != nil {
			return nil, "", "", err
		}
	}
	format = detectFormat(head, opt)
	if format == "cache" {
		return nil, "", "", fmt.Errorf("%s: a binary cache must be loaded by its path (not from a pipe or a compressed file)", name)
	}
	return newGuard(br, name, opt.MaxLine), format, via, nil
}

// peekHead returns the first bytes of br for format detection, or the
// error of an empty stream (after the decompression via, if not "").
func peekHead(br *bufio.Reader, name, via string) ([]byte, error) {
	head, err := br.Peek(headBytes)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(head) == 0 {
		if via != "" {
			return nil, fmt.Errorf("%s: empty file (after %s decompression): %w", name, via, ErrNoData)
		}
		return nil, fmt.Errorf("%s: empty file: %w", name, ErrNoData)
	}
	return head, nil
}

// streamError names the stream in a read error, unless the guard's
// error already does.
func streamError(name string, err error) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// streamBlockBytes is the size of the blocks a stream is read into; each
// block is a parsing chunk. Tests lower it.
var streamBlockBytes = 4 << 20

// readBlocks reads r to the end into blocks that end on line boundaries
// (but the last). It returns the text chunks and the allocations behind
// them, which the caller frees with freeBlock once done with the chunks,
// also on error. A line longer than a block gets a bigger block.
func readBlocks(r io.Reader, blockSize int) (chunks, blocks [][]byte, err error) {
	if blockSize < 1 {
		blockSize = 1
	}
	var carry []byte    // start of a line not yet complete
	var carryBuf []byte // the block carry lives in, if no chunk uses it
	size := blockSize
	for {
		if 2*len(carry) > size {
			size = 2 * len(carry)
		}
		buf := allocBlock(size)
		blocks = append(blocks, buf)
		n := copy(buf, carry)
		if carryBuf != nil {
			// Nothing else points into it: give it back now.
			freeBlock(carryBuf)
			blocks = removeBlock(blocks, carryBuf)
			carryBuf = nil
		}
		m, rerr := fill(r, buf[n:])
		filled := buf[:n+m]
		if rerr == io.EOF {
			if len(filled) > 0 {
				chunks = append(chunks, filled)
			}
			return chunks, blocks, nil
		}
		if rerr != nil {
			return nil, blocks, rerr
		}
		k := bytes.LastIndexByte(filled, '\n')
		if k < 0 {
			carry, carryBuf = filled, buf
			size *= 2
			continue
		}
		chunks = append(chunks, filled[:k+1])
		carry, carryBuf = filled[k+1:], nil
		size = blockSize
	}
}

// fill reads into b until it is full (nil error) or r fails; io.EOF
// means the end of r. Unlike io.ReadFull it keeps a reader's own
// io.ErrUnexpectedEOF (a truncated compressed file) an error.
func fill(r io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func removeBlock(blocks [][]byte, b []byte) [][]byte {
	for i := range blocks {
		if len(blocks[i]) > 0 && &blocks[i][0] == &b[0] {
			return append(blocks[:i], blocks[i+1:]...)
		}
	}
	return blocks
}

// detectFormat picks the format from opt.Format or, when that is empty,
// from the first bytes of the (decompressed) input.
func detectFormat(head []byte, opt Options) string {
	if opt.Format != "" {
		return opt.Format
	}
	if cache.HasMagic(head) {
		return "cache"
	}
	for _, c := range bytes.TrimPrefix(head, utf8BOM) {
		switch c {
		case ' ', '\t', '\r', '\n', '\v', '\f':
			continue
		case '{':
			return "ndjson"
		}
		return "libsvm"
	}
	return "libsvm"
}

// checkOptions refuses options no read can honour.
func checkOptions(opt Options) error {
	switch opt.Format {
	case "", "libsvm", "ndjson", "cache":
	default:
		return fmt.Errorf("unknown data format %q (want libsvm, ndjson or cache)", opt.Format)
	}
	if opt.Threads < 0 {
		return &OptionError{Option: "Options.Threads", Value: strconv.Itoa(opt.Threads), Reason: "a thread count cannot be negative (0: all cores)"}
	}
	if opt.MaxFeatures < 0 {
		return &OptionError{Option: "Options.MaxFeatures", Value: strconv.Itoa(opt.MaxFeatures), Reason: "a feature cap cannot be negative (0: the int32 limit)"}
	}
	return nil
}

func threadCount(opt Options) int {
	if opt.Threads > 0 {
		return opt.Threads
	}
	return runtime.GOMAXPROCS(0)
}
