package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// file is one archive entry: its name in the archive, where it is read
// from, and its mode.
type file struct {
	name, src string
	mode      int64
}

// writeTarGz writes files under dir/ into a gzipped tar at path, every
// header fixed but for name, size and mode, so the same inputs give the
// same bytes.
func writeTarGz(path, dir string, mtime time.Time, files []file) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression) // no Name, ModTime zero: not recorded
	tw := tar.NewWriter(zw)
	if err := tw.WriteHeader(header(dir+"/", tar.TypeDir, 0o755, 0, mtime)); err != nil {
		return err
	}
	for _, e := range files {
		if err := addFile(tw, dir+"/"+e.name, e, mtime); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// addFile copies one file into tw.
func addFile(tw *tar.Writer, name string, e file, mtime time.Time) error {
	src, err := os.Open(e.src)
	if err != nil {
		return err
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(header(name, tar.TypeReg, e.mode, st.Size(), mtime)); err != nil {
		return err
	}
	_, err = io.Copy(tw, src)
	return err
}

// header is a tar header owned by root with the given time.
func header(name string, typ byte, mode, size int64, mtime time.Time) *tar.Header {
	return &tar.Header{Name: name, Typeflag: typ, Mode: mode, Size: size, ModTime: mtime,
		Uname: "root", Gname: "root", Format: tar.FormatPAX}
}

// writeSums writes dir/SHA256SUMS over the named files of dir, sorted,
// in the format `sha256sum -c` reads.
func writeSums(dir string, names []string) error {
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		sum, err := sha256File(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(b.String()), 0o644)
}

// sha256File is the hex SHA-256 of a file's content.
func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
