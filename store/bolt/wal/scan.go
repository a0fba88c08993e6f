package wal

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
)

// Scanned is what Scan found in a log directory.
type Scanned struct {
	Segments []uint64 // first LSN of each segment, oldest first
	Records  []Record // every good record, in LSN order
	Next     uint64   // the LSN after the last record (the first segment's name if none)
	TailEnd  int64    // the length of the last segment's good part
	Torn     string   // why the last segment ends before its end ("" if it does not)
	TornAt   uint64   // the LSN the torn frame would have had
}

// Scan reads every segment in dir without changing anything: the
// records, and the torn tail of the last segment if it has one. A
// missing dir is an empty log. Damage that is not a torn tail (a bad
// frame in a segment that is not the last, or one in the last that is
// not the end of what was written: tailDamage) is a *DamageError;
// segments whose LSNs do not follow on are an error wrapping ErrCorrupt.
func Scan(fsys FS, dir string) (*Scanned, error) {
	names, err := fsys.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return &Scanned{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("wal: %w", err)
	}
	s := &Scanned{}
	for _, name := range names {
		if first, ok := parseSegName(name); ok {
			s.Segments = append(s.Segments, first)
		}
	}
	slices.Sort(s.Segments)
	for i, first := range s.Segments {
		if err := s.segment(fsys, dir, i, first); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// segment reads segment i, whose first LSN is first.
func (s *Scanned) segment(fsys FS, dir string, i int, first uint64) error {
	if i > 0 && first != s.Next {
		return fmt.Errorf("%w: segment %s starts at LSN %d, where %d was next", ErrCorrupt, segName(first), first, s.Next)
	}
	buf, err := fsys.ReadFile(filepath.Join(dir, segName(first)))
	if err != nil {
		return fmt.Errorf("wal: %w", err)
	}
	recs, end, stop := parseFrames(buf, first)
	want := first + uint64(len(recs))
	last := i == len(s.Segments)-1
	if stop != "" && !last {
		return &DamageError{Path: filepath.Join(dir, segName(first)), Offset: int64(end), LSN: want, Detail: stop + " before the end of a segment that is not the last"}
	}
	if stop != "" {
		if why := tailDamage(buf, end, want); why != "" {
			return &DamageError{Path: filepath.Join(dir, segName(first)), Offset: int64(end), LSN: want, Detail: stop + ", and " + why}
		}
	}
	s.Records = append(s.Records, recs...)
	s.Next = first + uint64(len(recs))
	if last {
		s.TailEnd, s.Torn, s.TornAt = int64(end), stop, s.Next
	}
	return nil
}

// needs checks that the records above after are all there: the first
// segment starts at or below after+1.
func (s *Scanned) needs(after uint64) error {
	if len(s.Segments) > 0 && s.Segments[0] > after+1 {
		return fmt.Errorf("%w: the log starts at LSN %d but the data file holds only up to %d", ErrCorrupt, s.Segments[0], after)
	}
	return nil
}
