// Page text written in Markdown (tool descriptions often are), shown as
// plain text: no backticks, emphasis marks or link syntax, nothing parsed
// as HTML. Pure, so Node's tests cover it.

/** md as plain text: `code` -> code, **bold** -> bold, [text](url) -> text (url), "# " and list marks dropped. */
export function plainText(md) {
  let s = String(md ?? '');
  s = s.replace(/```[^\n`]*\n?([\s\S]*?)```/g, '$1');
  s = s.replace(/`([^`\n]+)`/g, '$1');
  s = s.replace(/!?\[([^\]\n]+)\]\(([^)\s]+)\)/g, (_, text, url) => (text === url ? url : `${text} (${url})`));
  s = s.replace(/(\*\*|__)(?=\S)([^\n]*?\S)\1/g, '$2');
  s = s.replace(/(^|[\s("'])([*_])(?=[^\s*_])([^*_\n]*?[^\s*_])\2(?=$|[\s).,;:!?"'])/gm, '$1$3');
  s = s.replace(/^\s{0,3}#{1,6}\s+/gm, '');
  s = s.replace(/^(\s*)[-*+]\s+/gm, '$1• ');
  return s;
}
