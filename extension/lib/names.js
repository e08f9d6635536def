// Tool-name rules of the WebMCP draft (registerTool): 1 to 128 characters,
// each an ASCII letter or digit, "_", "-" or ".".
//
// generated/main-world.js is a classic script (it runs in the page's world before any
// page script, where modules cannot be imported) and carries its own copy of
// TOOL_NAME_PATTERN; test/main-world.test.js checks that both agree.

/** The pattern every WebMCP tool name matches. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** Reports whether name is a valid WebMCP tool name. */
export function isValidToolName(name) {
  return typeof name === 'string' && TOOL_NAME_PATTERN.test(name);
}

/**
 * Explains why name is not a valid tool name, or returns "" when it is.
 */
export function toolNameProblem(name) {
  if (typeof name !== 'string') return 'a tool name must be a string';
  if (name.length === 0) return 'a tool name must not be empty';
  if (name.length > 128) return `a tool name has at most 128 characters, this one has ${name.length}`;
  const bad = name.match(/[^A-Za-z0-9_.-]/);
  if (bad) return `a tool name may only contain A-Z, a-z, 0-9, "_", "-" and ".", not ${JSON.stringify(bad[0])}`;
  return '';
}
