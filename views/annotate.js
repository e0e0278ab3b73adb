// The annotate page's keyboard shortcuts (progressive enhancement: the form works without this script).
// A key names a button of the vote form (data-key); it is pressed unless the reason field has focus.
document.addEventListener('keydown', (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
  const t = e.target;
  if (t instanceof HTMLTextAreaElement || t instanceof HTMLInputElement || t instanceof HTMLSelectElement)
    return;
  for (const b of document.querySelectorAll('form.vote button[data-key]')) {
    if (b.dataset.key === e.key.toLowerCase()) {
      e.preventDefault();
      b.click();
      return;
    }
  }
});
