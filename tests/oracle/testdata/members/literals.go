package members

// Literal keys whose literal type is elided and comes from a named slice, array or map type.

type P struct{ a, b int }

type (
	Ps          []P
	PPs         []*P
	Arr         [2]P
	ByK         map[string]P
	ByP         map[P]bool
	List[T any] []T
	Nest        [][]P
)

var (
	_ = Ps{{a: 1}, {b: 2}}
	_ = PPs{{a: 1}}
	_ = Arr{{a: 1}, {b: 2}}
	_ = ByK{"x": {a: 1}}
	_ = ByP{{a: 1}: true}
	_ = List[P]{{a: 1}}
	_ = Nest{{{a: 1}}}
)
