//go:build !unix && !windows

package webmcp

import "os"

func fileOwner(os.FileInfo) (int, bool) { return 0, false }

func processGone(int) bool { return false }

func refused(error) bool { return false }
