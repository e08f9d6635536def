//go:build !windows

package manifest

import "errors"

// ErrNoRegistry is what the registry functions return on systems other
// than Windows.
var ErrNoRegistry = errors.New("the Windows registry exists on Windows only")

// ReadRegistry reads the default value of HKEY_CURRENT_USER\key (Windows
// only).
func ReadRegistry(key string) (string, error) { return "", ErrNoRegistry }

// WriteRegistry sets the default value of HKEY_CURRENT_USER\key (Windows
// only).
func WriteRegistry(key, value string) ([]string, error) { return nil, ErrNoRegistry }

// RemoveRegistry deletes the default value of HKEY_CURRENT_USER\key, then
// the key when empty (Windows only).
func RemoveRegistry(key string) error { return ErrNoRegistry }

// RemoveEmptyKey deletes HKEY_CURRENT_USER\key when empty (Windows only).
func RemoveEmptyKey(key string) (bool, error) { return false, ErrNoRegistry }
