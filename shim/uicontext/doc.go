// Package uicontext turns the UI context that browsers report (package
// webmcp's Context, Pin and Tab.Focused) into what agents get: the JSON
// payload of the get_ui_context tool and of the webmcp://ui-context
// resource ([View]), the <ui_context> and <pinned_context> text block that
// webmcp-shim context prints for prompt hooks ([Render]), and the MCP
// instructions that explain both ([Instructions]).
//
// Everything here is pure: no I/O, no clocks except the one passed in. The
// shim gathers the hosts' states, asks for a fresh sample, and calls
// [FindFocus], [Build] and [Render].
//
// Nothing a page supplies is trusted: summaries, titles, URLs, notes,
// descriptions and ambient text are cut to fixed lengths, data over
// [MaxData] bytes is replaced by a marker that tells the model to use a
// tool for more, and any "<ui_context>", "</ui_context>", "<pinned_context>"
// or "</pinned_context>" inside page-supplied text is neutralized, so that
// a page cannot close the block and speak outside it.
package uicontext
