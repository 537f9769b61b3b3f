// Package members exercises interface method selectors for the -fields oracle: which
// declared interface spells the method a selector selects.
package members

import "io"

type R interface {
	Close() error
	Read() int
}

type W interface {
	Close() error
	Write(n int)
}

// RW embeds both: the method set keeps one Close.
type RW interface {
	R
	W
}

// X embeds an interface this tree does not declare before R.
type X interface {
	io.Closer
	R
}

// Named is a defined type whose underlying interface is RW's.
type Named RW

// S embeds an interface in a struct: its methods are promoted.
type S struct {
	RW
	n int
}

type G[T any] interface{ Get() T }

type unexported interface{ m() }

func use(rw RW, x X, n Named, s S, g G[int], u unexported, lit interface{ Close() error }) {
	_ = rw.Close()
	rw.Write(1)
	_ = rw.Read()
	_ = x.Close()
	_ = x.Read()
	_ = n.Close()
	_ = s.Read()
	_ = s.n
	_ = g.Get()
	u.m()
	_ = lit.Close()
	f := rw.Read
	_ = f
	var r R = rw
	_ = r.Read()
}
