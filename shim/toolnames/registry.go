package toolnames

// Registry assigns unique names to keys (one key per tool). The zero value
// is not usable; call NewRegistry. A Registry is not safe for concurrent use:
// its owner serializes access.
type Registry[K comparable] struct {
	byKey    map[K]string
	byName   map[string]K
	reserved map[string]bool
}

// NewRegistry returns an empty Registry. The reserved names (the bridge's own
// tools, say) are never given to a key.
func NewRegistry[K comparable](reserved ...string) *Registry[K] {
	r := &Registry[K]{byKey: map[K]string{}, byName: map[string]K{}, reserved: map[string]bool{}}
	for _, n := range reserved {
		r.reserved[n] = true
	}
	return r
}

// Assign returns the name of key, giving it one if it has none: the
// sanitized want if that is free, else the first free of want_2, want_3, …
// A key that already has a name keeps it, whatever want says now.
func (r *Registry[K]) Assign(key K, want string) string {
	if name, ok := r.byKey[key]; ok {
		return name
	}
	base := Sanitize(want)
	name := base
	for n := 2; r.taken(name); n++ {
		name = withSuffix(base, n)
	}
	r.byKey[key] = name
	r.byName[name] = key
	return name
}

// Release frees key's name for later tools and returns it; ok is false if
// key had no name.
func (r *Registry[K]) Release(key K) (name string, ok bool) {
	name, ok = r.byKey[key]
	if ok {
		delete(r.byKey, key)
		delete(r.byName, name)
	}
	return name, ok
}

// Name returns the name of key, if it has one.
func (r *Registry[K]) Name(key K) (string, bool) {
	name, ok := r.byKey[key]
	return name, ok
}

// Lookup returns the key that holds name, if any.
func (r *Registry[K]) Lookup(name string) (K, bool) {
	key, ok := r.byName[name]
	return key, ok
}

// Len returns the number of keys that hold a name.
func (r *Registry[K]) Len() int { return len(r.byKey) }

func (r *Registry[K]) taken(name string) bool {
	if r.reserved[name] {
		return true
	}
	_, ok := r.byName[name]
	return ok
}
