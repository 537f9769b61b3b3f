// Package a declares the interfaces and base types the other packages reuse.
package a

type Reader interface {
	Read(p []byte) (int, error)
}

type Closer interface{ Close() error }

// ReadCloser embeds interfaces; Overlap embeds overlapping identical methods.
type ReadCloser interface {
	Reader
	Closer
}

type Overlap interface {
	Reader
	ReadCloser
}

// Unexported methods are qualified by package a.
type hidden interface{ secret() }

type Hidden interface {
	secret()
	Name() string
}

type Variadic interface {
	Log(format string, args ...any)
}

type Sliced interface {
	Log(format string, args []any)
}

type Stringer interface{ String() string }

// Skipped as interfaces: generic, constraint, empty.
type Generic[T any] interface{ Get() T }

type Constraint interface {
	~int
	String() string
}

type Empty interface{}

// File has value receivers, PFile pointer receivers.
type File struct{}

func (File) Read(p []byte) (int, error) { return 0, nil }
func (File) Close() error               { return nil }

type PFile struct{}

func (*PFile) Read(p []byte) (int, error) { return 0, nil }
func (*PFile) Close() error               { return nil }

type Secret struct{}

func (Secret) secret()      {}
func (Secret) Name() string { return "" }

type Logger struct{}

func (Logger) Log(format string, args ...any) {}

type MyInt int

func (MyInt) String() string { return "" }

// Skipped as types: aliases and generics; a named pointer type has no methods.
type Alias = File

type Gen[T any] struct{}

func (Gen[T]) String() string { return "" }

type Ptr *File
