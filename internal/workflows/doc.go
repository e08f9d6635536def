// Package workflows holds the test that lints the GitHub Actions workflows
// of .github/workflows with actionlint: they cannot run where the bridge is
// developed (.ci/run is the gate there), so a mistake in them would
// otherwise show only on GitHub.
//
// Test-only.
package workflows
