package members

// Methods of values whose type is a type parameter: the method set is the constraint's.

type Namer interface{ Name() string }

type Sizer interface {
	Namer
	Size() int
}

type Keyed[K comparable] interface{ Key() K }

type Box[T Namer] struct{ v T }

func (b Box[T]) Label() string { return b.v.Name() }

func Names[T Namer](xs []T) (out []string) {
	for _, x := range xs {
		out = append(out, x.Name())
	}
	return out
}

// Through an embedded interface, a generic constraint, a constraint literal that embeds a
// named interface next to a type term, and a method value.
func Total[S Sizer, K Keyed[string]](s S, k K) int {
	f := s.Name
	return s.Size() + len(f()) + len(k.Key())
}

func Mixed[T interface {
	~struct{ n string }
	Namer
}](t T) string {
	return t.Name()
}

// A method the constraint literal lists itself has no package-level declaration; a pointer
// to a type parameter has no methods.
func Own[T interface{ Own() int }](t T, p *T) int { return t.Own() }
