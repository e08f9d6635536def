package toolnames

import "strings"

// Registry assigns unique names to keys (one key per tool). The zero value
// is not usable; call NewRegistry. A Registry is not safe for concurrent use:
// its owner serializes access.
//
// Each key comes with a class: who may ever hold its name. For page tools
// the class is the registering frame's origin and the page's own tool name.
// A name, once held, stays with its class for the Registry's life: when its
// key is released, the name goes back to the next key of the same class (the
// same app's tool, reopened) and never to a key of another class (another
// site). So an agent told to "use find_slices" finds the same app's tool
// under that name after a reload, and never another site's.
//
// A key whose tool went away for a while (its browser's host restarting)
// can be retired instead of released: it keeps its name, which no other key
// gets, not even one of its class, and has it back if it returns. The
// oldest retired keys are released past MaxRetired.
type Registry[K comparable] struct {
	byKey     map[K]held
	byName    map[string]K
	reserved  map[string]bool
	retired   []K // oldest first
	isRetired map[K]bool
	// classOf is the class that held each name first; names are
	// forgotten oldest first past MaxRemembered.
	classOf    map[string]string
	remembered []string // oldest first
}

// held is a key's name and class.
type held struct {
	name, class string
}

// MaxRetired bounds the retired keys a Registry keeps; past it, the oldest
// ones are released.
const MaxRetired = 4096

// MaxRemembered bounds the names whose class a Registry remembers; past it,
// the oldest name that no key holds may go to any class again.
const MaxRemembered = 16384

// NewRegistry returns an empty Registry. The reserved names (the bridge's own
// tools, say) are never given to a key.
func NewRegistry[K comparable](reserved ...string) *Registry[K] {
	r := &Registry[K]{
		byKey:     map[K]held{},
		byName:    map[string]K{},
		reserved:  map[string]bool{},
		isRetired: map[K]bool{},
		classOf:   map[string]string{},
	}
	for _, n := range reserved {
		r.reserved[fold(n)] = true
	}
	return r
}

// fold is a name as clients may confuse it with another: in lower case,
// with '-' for '_'. A reserved name is kept from every name of its fold,
// so that no page tool "List_Tabs" or "open-page" stands beside the
// bridge's own.
func fold(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "-", "_")
}

// Assign returns the name of key, giving it one if it has none: the
// sanitized want if that is free for class, else the first free of want_2,
// want_3, … A name is free for a class when no key holds it and no key of
// another class ever did. A key that already has a name keeps it, whatever
// want says now, as long as its class is the same; a key whose class
// changed (its tab now shows another site) gives up its name and gets one
// as a new key of its new class would.
func (r *Registry[K]) Assign(key K, want, class string) string {
	if h, ok := r.byKey[key]; ok {
		if h.class == class {
			if r.isRetired[key] {
				delete(r.isRetired, key)
				r.retired = slicesDelete(r.retired, key)
			}
			return h.name
		}
		r.Release(key)
	}
	base := Sanitize(want)
	name := base
	for n := 2; !r.free(name, class); n++ {
		name = withSuffix(base, n)
	}
	r.byKey[key] = held{name, class}
	r.byName[name] = key
	r.remember(name, class)
	return name
}

// Release frees key's name for later keys of its class and returns it; ok
// is false if key had no name.
func (r *Registry[K]) Release(key K) (name string, ok bool) {
	h, ok := r.byKey[key]
	if ok {
		delete(r.byKey, key)
		delete(r.byName, h.name)
		if r.isRetired[key] {
			delete(r.isRetired, key)
			r.retired = slicesDelete(r.retired, key)
		}
	}
	return h.name, ok
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
	h, ok := r.byKey[key]
	return h.name, ok
}

// Lookup returns the key that holds name, if any.
func (r *Registry[K]) Lookup(name string) (K, bool) {
	key, ok := r.byName[name]
	return key, ok
}

// Len returns the number of keys that hold a name, retired ones included.
func (r *Registry[K]) Len() int { return len(r.byKey) }

// free reports whether name may be given to a new key of class.
func (r *Registry[K]) free(name, class string) bool {
	if r.reserved[fold(name)] {
		return false
	}
	if _, ok := r.byName[name]; ok {
		return false
	}
	c, ok := r.classOf[name]
	return !ok || c == class
}

// remember records that class holds name, if no class did before; past
// MaxRemembered names, the oldest that no key holds is forgotten.
func (r *Registry[K]) remember(name, class string) {
	if _, ok := r.classOf[name]; ok {
		return
	}
	r.classOf[name] = class
	r.remembered = append(r.remembered, name)
	for i := 0; len(r.classOf) > MaxRemembered && i < len(r.remembered); {
		old := r.remembered[i]
		if _, held := r.byName[old]; held {
			i++
			continue
		}
		delete(r.classOf, old)
		r.remembered = append(r.remembered[:i], r.remembered[i+1:]...)
	}
}
