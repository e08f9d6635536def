//go:build windows

package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"golang.org/x/sys/windows/registry"
)

// ReadRegistry reads the default value of HKEY_CURRENT_USER\key; an error
// that wraps fs.ErrNotExist when the key or its value is missing.
func ReadRegistry(key string) (string, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, key, registry.QUERY_VALUE)
	if err != nil {
		return "", fmt.Errorf("HKCU\\%s: %w", key, err)
	}
	defer k.Close()
	v, _, err := k.GetStringValue("")
	if err != nil {
		return "", fmt.Errorf("HKCU\\%s (default value): %w", key, err)
	}
	return v, nil
}

// WriteRegistry sets the default value of HKEY_CURRENT_USER\key to value
// (a string, REG_SZ), creating the key and its missing parents, and returns
// the keys it created, parents first.
func WriteRegistry(key, value string) (created []string, err error) {
	parts := strings.Split(key, `\`)
	for i := range parts {
		sub := strings.Join(parts[:i+1], `\`)
		k, err := registry.OpenKey(registry.CURRENT_USER, sub, registry.QUERY_VALUE)
		if err == nil {
			k.Close()
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return created, fmt.Errorf("HKCU\\%s: %w", sub, err)
		}
		k, _, err = registry.CreateKey(registry.CURRENT_USER, sub, registry.QUERY_VALUE)
		if err != nil {
			return created, fmt.Errorf("create HKCU\\%s: %w", sub, err)
		}
		k.Close()
		created = append(created, sub)
	}
	k, err := registry.OpenKey(registry.CURRENT_USER, key, registry.SET_VALUE)
	if err != nil {
		return created, fmt.Errorf("HKCU\\%s: %w", key, err)
	}
	defer k.Close()
	if err := k.SetStringValue("", value); err != nil {
		return created, fmt.Errorf("set HKCU\\%s: %w", key, err)
	}
	return created, nil
}

// RemoveRegistry deletes the default value of HKEY_CURRENT_USER\key, then
// the key when that leaves it empty. A missing value is not an error.
func RemoveRegistry(key string) error {
	k, err := registry.OpenKey(registry.CURRENT_USER, key, registry.SET_VALUE)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("HKCU\\%s: %w", key, err)
	}
	err = k.DeleteValue("")
	k.Close()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("HKCU\\%s: delete the default value: %w", key, err)
	}
	_, err = RemoveEmptyKey(key)
	return err
}

// RemoveEmptyKey deletes HKEY_CURRENT_USER\key when it holds no value and
// no key, and reports whether it did.
func RemoveEmptyKey(key string) (bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, key, registry.QUERY_VALUE|registry.ENUMERATE_SUB_KEYS)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("HKCU\\%s: %w", key, err)
	}
	st, err := k.Stat()
	k.Close()
	if err != nil {
		return false, fmt.Errorf("HKCU\\%s: %w", key, err)
	}
	if st.SubKeyCount > 0 || st.ValueCount > 0 {
		return false, nil
	}
	if err := registry.DeleteKey(registry.CURRENT_USER, key); err != nil {
		return false, fmt.Errorf("delete HKCU\\%s: %w", key, err)
	}
	return true, nil
}
