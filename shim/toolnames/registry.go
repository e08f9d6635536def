package toolnames

// Registry assigns unique names to keys (one key per tool). The zero value
// is not usable; call NewRegistry. A Registry is not safe for concurrent use:
// its owner serializes access.
//
// A key whose tool went away can be retired instead of released: it keeps
// its name, which no other key gets, and has it back if it returns. The
// oldest retired keys are released past MaxRetired.
type Registry[K comparable] struct {
	byKey     map[K]string
	byName    map[string]K
	reserved  map[string]bool
	retired   []K // oldest first
	isRetired map[K]bool
}

// MaxRetired bounds the retired keys a Registry keeps; past it, the oldest
// ones are released.
const MaxRetired = 4096

// NewRegistry returns an empty Registry. The reserved names (the bridge's own
// tools, say) are never given to a key.
func NewRegistry[K comparable](reserved ...string) *Registry[K] {
	r := &Registry[K]{byKey: map[K]string{}, byName: map[string]K{}, reserved: map[string]bool{}, isRetired: map[K]bool{}}
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
		if r.isRetired[key] {
			delete(r.isRetired, key)
			r.retired = slicesDelete(r.retired, key)
		}
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
		if r.isRetired[key] {
			delete(r.isRetired, key)
			r.retired = slicesDelete(r.retired, key)
		}
	}
	return name, ok
}

// Retire keeps key's name for key alone while its tool is gone, so that a
// returning key (the same tab's tool after the browser's host restarted)
// has its name back and no other key is ever given it. Past MaxRetired
// retired keys, the oldest is released.
func (r *Registry[K]) Retire(key K) {
	if _, ok := r.byKey[key]; !ok || r.isRetired[key] {
		return
	}
	r.isRetired[key] = true
	r.retired = append(r.retired, key)
	for len(r.retired) > MaxRetired {
		r.Release(r.retired[0])
	}
}

// Retired reports whether key is retired.
func (r *Registry[K]) Retired(key K) bool { return r.isRetired[key] }

// slicesDelete removes the first k from s.
func slicesDelete[K comparable](s []K, k K) []K {
	for i, v := range s {
		if v == k {
			return append(s[:i], s[i+1:]...)
		}
	}
	return s
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

// Len returns the number of keys that hold a name, retired ones included.
func (r *Registry[K]) Len() int { return len(r.byKey) }

func (r *Registry[K]) taken(name string) bool {
	if r.reserved[name] {
		return true
	}
	_, ok := r.byName[name]
	return ok
}
