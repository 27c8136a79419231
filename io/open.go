package dataio

import (
	"bufio"
	"compress/bzip2"
	"compress/gzip"
	"fmt"
	"io"
	"os"
)

// Open opens the file at path for reading its text. A gzip or bzip2 file,
// recognised by its magic bytes whatever its name, is decompressed on the
// fly, as Load does; an xz or zstd file is refused, as by Load. Closing
// the reader closes the file.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(magicBytes) // a read error comes back from Read
	r, _, err := decompress(br, head)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &openFile{Reader: r, f: f}, nil
}

type openFile struct {
	io.Reader
	f *os.File
}

func (o *openFile) Close() error { return o.f.Close() }

// Compression names the compression of the file at path by its magic
// bytes, as Load and Open see it: "gzip", "bzip2", "xz", "zstd", or "" for
// none.
func Compression(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var head [magicBytes]byte
	n, _ := io.ReadFull(f, head[:])
	return compressionOf(head[:n]), nil
}

// magicBytes is the length of the longest magic number compressionOf
// knows.
const magicBytes = 6

// compressionOf names the compression format whose magic number starts
// head, or returns "".
func compressionOf(head []byte) string {
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return "gzip"
	case len(head) >= 4 && string(head[:3]) == "BZh" && head[3] >= '1' && head[3] <= '9':
		return "bzip2"
	case len(head) >= 6 && string(head[:6]) == "\xfd7zXZ\x00":
		return "xz"
	case len(head) >= 4 && string(head[:4]) == "\x28\xb5\x2f\xfd":
		return "zstd"
	}
	return ""
}

// decompress returns a reader of the text br holds, whose first bytes are
// head: br itself, or a gzip or bzip2 reader over it when head starts
// with that magic number. c names the compression undone ("" for none);
// the other compressions compressionOf knows are refused.
func decompress(br *bufio.Reader, head []byte) (r io.Reader, c string, err error) {
	switch c = compressionOf(head); c {
	case "":
		return br, "", nil
	case "gzip":
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, c, err
		}
		return zr, c, nil
	case "bzip2":
		return bzip2.NewReader(br), c, nil
	}
	return nil, c, fmt.Errorf("%s-compressed input is not supported; decompress it first", c)
}
