// Package d: an import alias, unsafe.Pointer, a struct with unexported fields.
package d

import (
	"unsafe"

	x "example.com/impl/a"
)

type XFile struct{ x.PFile }

type U interface{ P() unsafe.Pointer }
type UImpl struct{}

func (UImpl) P() unsafe.Pointer { return nil }

type Priv interface{ Pt() struct{ x int } }
type PrivImpl struct{}

func (PrivImpl) Pt() struct{ x int } { return struct{ x int }{} }
