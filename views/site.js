// Progressive enhancement only: every page works without this script.
// - Filter forms submit only when their button is pressed (a choice that changes never reloads the page on its
//   own, WCAG 3.2.2); after the reload, focus returns to the control that submitted the form.
// - A table wider than its box gets `data-overflow`, which shows a "scroll sideways" cue in its caption.
document.documentElement.classList.add('js');

const FOCUS = 'mt-arena:focus';
document.addEventListener('submit', (e) => {
  const form = e.target;
  if (!(form instanceof HTMLFormElement) || !form.classList.contains('filters')) return;
  const by = e.submitter && e.submitter.id ? e.submitter.id : document.activeElement && document.activeElement.id;
  try {
    if (by) sessionStorage.setItem(FOCUS, JSON.stringify({ path: form.getAttribute('action'), id: by }));
  } catch {
    // storage may be off: focus then starts at the top, as without this script
  }
});
try {
  const saved = JSON.parse(sessionStorage.getItem(FOCUS) || 'null');
  sessionStorage.removeItem(FOCUS);
  const el = saved && saved.path === location.pathname ? document.getElementById(saved.id) : null;
  if (el) el.focus();
} catch {
  // nothing saved, or storage off
}

const markOverflow = () => {
  for (const box of document.querySelectorAll('.scroll'))
    box.toggleAttribute('data-overflow', box.scrollWidth > box.clientWidth + 1);
};
markOverflow();
addEventListener('resize', markOverflow);
document.addEventListener('change', (e) => {
  if (e.target instanceof HTMLInputElement && e.target.closest('.allcols')) markOverflow();
});
