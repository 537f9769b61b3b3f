// Package c: dot and blank imports.
package c

import (
	. "example.com/impl/a"
	_ "example.com/impl/b"
)

type DotFile struct{ File }

type DotR interface{ Reader }
