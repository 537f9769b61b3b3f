// Package b: promotion, ambiguity, shadowing, cross-package names, aliases, generics.
package b

import "example.com/impl/a"

// Struct in struct, pointer embedding, interface in struct, depth 2.
type Wrap struct{ a.File }
type WrapPtr struct{ *a.PFile }
type WrapP struct{ a.PFile }
type WrapIface struct{ a.Reader }
type Deep struct{ Wrap }
type PWrap struct{ *WrapP }

// Two Read at depth 1 cancel out (Close stays).
type Amb struct {
	a.File
	Other
}

type Other struct{}

func (Other) Read(p []byte) (int, error) { return 0, nil }

// The collision at depth 2 blocks the unique Read at depth 3.
type Block struct {
	Amb
	Inner
}
type Inner struct{ Deeper }
type Deeper struct{ a.File }

// A field shadows the promoted method; the shallower method wins over a deeper one.
type Shadow struct {
	Read int
	a.File
}

type Shallow struct {
	a.File
	Mid
}
type Mid struct{ BadRead }
type BadRead struct{}

func (BadRead) Read() {}

// The same type reached twice at one depth: its methods collide.
type M1 struct{ a.File }
type M2 struct{ a.File }
type Twice struct {
	M1
	M2
}

// Unexported methods across packages.
type MySecret struct{}

func (MySecret) secret()      {}
func (MySecret) Name() string { return "" }

type EmbedSecret struct{ a.Secret }

type local interface{ secret() }

// Variadic vs slice parameter.
type SliceLogger struct{}

func (SliceLogger) Log(format string, args []any) {}

// An interface embedding one of another package.
type RC interface {
	a.Reader
	Close() error
}

// Same name as a.File, different result type.
type File struct{}

func (File) Read(p []byte) (n int64, err error) { return 0, nil }

// Aliases: embedded alias (field name AF), alias in a signature, method on an alias.
type AF = a.File
type WrapAlias struct{ AF }
type Bytes = []byte
type R2 interface {
	Read(p Bytes) (int, error)
}

type tok = Token
type Token struct{}

func (t tok) String() string { return "" }

// Generic instantiation embedded in a non-generic type.
type Box[T any] struct{ v T }

func (Box[T]) Get() T { var z T; return z }

type IntBox struct{ Box[int] }
type IntGetter interface{ Get() int }
type StrGetter interface{ Get() string }

// Array lengths through constants.
const N = 4

type Arr interface{ Sum() [N * 2]byte }
type Hasher struct{}

func (Hasher) Sum() [8]byte { return [8]byte{} }

// Struct identity includes tags; channel direction counts.
type Tagged interface {
	Meta() struct {
		X int `json:"x"`
	}
}
type T1 struct{}

func (T1) Meta() struct {
	X int `json:"x"`
} {
	return struct {
		X int `json:"x"`
	}{}
}

type T2 struct{}

func (T2) Meta() struct{ X int } { return struct{ X int }{} }

type Src interface{ C() <-chan int }
type Ch1 struct{}

func (Ch1) C() <-chan int { return nil }

type Ch2 struct{}

func (Ch2) C() chan int { return nil }

// error embedded; value vs pointer method mix.
type ErrI interface {
	error
	Code() int
}
type MyErr struct{}

func (MyErr) Error() string { return "" }
func (*MyErr) Code() int    { return 0 }

type CmpI interface {
	comparable
	M()
}
