package register

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// How files are written. A project folder is often a clone nobody
// checked, and git keeps symbolic links, so no name is written through as
// it was found:
//
//   - The target is found by resolving its links on purpose. In the
//     user's own folders a link (a dotfiles set-up: ~/.claude.json ->
//     dotfiles/claude.json) is followed to the real file, which is written
//     and backed up beside it; Result.Target names it. In a project, a link
//     (the file's or a folder's on the way) that leads out of the project
//     is refused, and every access goes through an os.Root of the project,
//     which cannot leave it either.
//   - The new content and the backup are written to new files, made with
//     O_EXCL under a random name in the file's folder, then renamed over
//     FILE and FILE.bak: a link or file that was at either name is
//     replaced, never written through.
//   - The backup gets the mode of the file it copies; so does the new file.

// Result is what applying an Edit did.
type Result struct {
	Changed bool   // the file was written
	Backup  string // the previous file's copy, if there was one
	// Target is the file the edit went to when Path leads there through
	// symbolic links (followed on purpose), else "".
	Target string
}

// Apply merges the entry into the file, creating the file (and its folder)
// if needed. A file that holds the entry already (in whatever formatting)
// is left alone; a changed one is saved first as FILE.bak (the latest
// previous version), and written with its old mode.
func (e *Edit) Apply() (Result, error) {
	p, err := e.prepare()
	if err != nil {
		return Result{}, err
	}
	defer p.close()
	return p.commit()
}

// Apply applies the plan's edits in turn, after finding, reading and
// merging every one of them first: a refusal (a link out of the project,
// a file it cannot edit) comes before any file is written. The results
// are those of the edits done, also when it fails.
func (p *Plan) Apply() ([]Result, error) {
	var ready []*pending
	defer func() {
		for _, r := range ready {
			r.close()
		}
	}()
	for _, e := range p.Edits {
		r, err := e.prepare()
		if err != nil {
			return nil, err
		}
		ready = append(ready, r)
	}
	var out []Result
	for _, r := range ready {
		res, err := r.commit()
		if err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}

// files is where an edit reads and writes: an os.Root (a project) or the
// file system (the user's own files). Names are relative to the root, or
// absolute.
type files interface {
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	Lstat(name string) (fs.FileInfo, error)
	Rename(oldname, newname string) error
	Remove(name string) error
	MkdirAll(name string, perm fs.FileMode) error
}

// osFiles is the file system as files.
type osFiles struct{}

func (osFiles) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
func (osFiles) Lstat(name string) (fs.FileInfo, error)       { return os.Lstat(name) }
func (osFiles) Rename(oldname, newname string) error         { return os.Rename(oldname, newname) }
func (osFiles) Remove(name string) error                     { return os.Remove(name) }
func (osFiles) MkdirAll(name string, perm fs.FileMode) error { return os.MkdirAll(name, perm) }

// pending is an edit ready to write: its file found, read and merged.
type pending struct {
	edit   *Edit
	fsys   files
	root   *os.Root // the project's, to close; nil for the user's files
	file   string   // the file's name in fsys, links resolved
	shown  string   // the same as an absolute path, to show
	target string   // shown, when Path leads there through links
	old    []byte
	exists bool
	mode   fs.FileMode
	data   []byte
	same   bool // the file holds the entry already
}

func (p *pending) close() {
	if p.root != nil {
		p.root.Close()
	}
}

// prepare finds the edit's file, reads it and merges the entry into it.
func (e *Edit) prepare() (*pending, error) {
	p := &pending{edit: e, mode: 0o644}
	var err error
	if e.within != "" {
		err = p.findInProject()
	} else {
		err = p.findOwn()
	}
	if err == nil {
		err = p.read()
	}
	if err != nil {
		p.close()
		return nil, fmt.Errorf("%s: %w; nothing was written. To add the entry by hand:\n%s", e.Path, err, e.Snippet)
	}
	p.data, p.same, err = e.merge(p.old)
	if err != nil {
		p.close()
		return nil, fmt.Errorf("%s: %w; nothing was written. To add the entry by hand:\n%s", e.Path, err, e.Snippet)
	}
	p.same = p.same && p.exists || e.noCreate && !p.exists
	return p, nil
}

// findOwn finds one of the user's own files, following its links and its
// folders' on purpose.
func (p *pending) findOwn() error {
	path := filepath.Clean(p.edit.Path)
	real, err := realPath(path)
	if err != nil {
		return err
	}
	if fi, err := os.Lstat(real); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		to, _ := os.Readlink(real)
		return fmt.Errorf("%s is a link to %s, which is not there: create that file, or remove the link", real, to)
	}
	p.fsys, p.file, p.shown = osFiles{}, real, real
	if real != path {
		p.target = real
	}
	return nil
}

// realPath is path with the links of its existing part resolved.
func realPath(path string) (string, error) {
	var rest []string
	for {
		real, err := filepath.EvalSymlinks(path)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(path) == path {
			return "", err
		}
		rest = append([]string{filepath.Base(path)}, rest...)
		path = filepath.Dir(path)
	}
}

// findInProject finds a file of the project, following only the links
// that stay in the project. The project folder's own path is taken as
// the user gave it, links and all.
func (p *pending) findInProject() error {
	proj := p.edit.within
	real, err := filepath.EvalSymlinks(proj)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("the project folder %s is not there: give one that is", proj)
	}
	if err != nil {
		return fmt.Errorf("the project folder: %w", err)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return fmt.Errorf("the project folder: %w", err)
	}
	p.root, p.fsys = root, root
	rel, err := filepath.Rel(proj, p.edit.Path)
	if err != nil {
		return err
	}
	file, err := resolveIn(root, real, proj, rel)
	if err != nil {
		return err
	}
	p.file, p.shown = file, filepath.Join(proj, file)
	if p.shown != filepath.Clean(p.edit.Path) {
		p.target = p.shown
	}
	return nil
}

// resolveIn resolves the links of rel, a path in root (the project
// folder proj, whose real path is real), and returns the path they lead
// to. A link that leads out of the project, or through a place outside
// it, is refused.
func resolveIn(root *os.Root, real, proj, rel string) (string, error) {
	todo := strings.Split(filepath.ToSlash(rel), "/")
	var done []string // resolved: no links
	missing := false  // done names a folder that is not there
	for links := 0; len(todo) > 0; {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", fmt.Errorf("%s leads out of the project %s", rel, proj)
			}
			done = done[:len(done)-1]
			continue
		}
		name := filepath.Join(append(done, c)...)
		if missing {
			done = append(done, c)
			continue
		}
		fi, err := root.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = true
			done = append(done, c)
			continue
		case err != nil:
			return "", err
		case fi.Mode()&fs.ModeSymlink == 0:
			done = append(done, c)
			continue
		}
		if links++; links > 40 {
			return "", fmt.Errorf("%s: too many links", filepath.Join(proj, name))
		}
		to, err := root.Readlink(name)
		if err != nil {
			return "", err
		}
		var next string
		if filepath.IsAbs(to) {
			next, err = filepath.Rel(real, to)
		} else {
			next = filepath.Join(filepath.Dir(name), to)
		}
		if err != nil || !filepath.IsLocal(next) && next != "." {
			return "", fmt.Errorf("%s is a link to %s, which leads outside the project %s: webmcp-shim writes nothing through it (a project may be a clone nobody checked); remove the link if it is not yours", filepath.Join(proj, name), to, proj)
		}
		done = nil
		todo = append(strings.Split(filepath.ToSlash(next), "/"), todo...)
	}
	if len(done) == 0 {
		return "", fmt.Errorf("%s is the project folder itself", rel)
	}
	return filepath.Join(done...), nil
}

// read reads the file, if it is there; it must be a regular file.
func (p *pending) read() error {
	fi, err := p.fsys.Lstat(p.file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%v)", p.shown, fi.Mode().Type())
	}
	// O_NONBLOCK: should it have become a FIFO, do not wait on it.
	f, err := p.fsys.OpenFile(p.file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%v)", p.shown, fi.Mode().Type())
	}
	if p.old, err = io.ReadAll(f); err != nil {
		return err
	}
	p.exists, p.mode = true, fi.Mode().Perm()
	return nil
}

// commit writes the merged file, after its backup.
func (p *pending) commit() (Result, error) {
	res := Result{Target: p.target}
	if p.same {
		return res, nil
	}
	if err := p.fsys.MkdirAll(filepath.Dir(p.file), 0o755); err != nil {
		return res, err
	}
	if p.exists {
		if err := p.replace(p.file+".bak", p.old); err != nil {
			return res, fmt.Errorf("back up %s: %w", p.shown, err)
		}
		res.Backup = p.shown + ".bak"
	}
	if err := p.replace(p.file, p.data); err != nil {
		return res, fmt.Errorf("write %s: %w", p.shown, err)
	}
	res.Changed = true
	return res, nil
}

// replace puts data at name with the file's mode: it writes a new file
// beside name (made with O_EXCL, so nothing that was there is written
// through) and renames it to name, which replaces whatever was at name,
// a link included, in one step.
func (p *pending) replace(name string, data []byte) error {
	var f *os.File
	var tmp string
	for try := 0; ; try++ {
		tmp = name + ".webmcp-" + strings.ToLower(rand.Text()[:8]) + ".tmp"
		var err error
		f, err = p.fsys.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || try == 10 {
			return err
		}
	}
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(p.mode) // exactly the mode, whatever the umask
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = p.fsys.Rename(tmp, name)
	}
	if err != nil {
		p.fsys.Remove(tmp)
	}
	return err
}
