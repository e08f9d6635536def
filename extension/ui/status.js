// The pages' status line (role="status"): what the last action did, or
// what went wrong and what to do.

/** Returns report(text, isError) writing into el. */
export function reporter(el) {
  return (text, isError = false) => {
    el.textContent = text;
    el.classList.toggle('error', !!isError);
  };
}
