// Progressive enhancement only: every page works without this script.
// Filter forms submit as soon as a choice changes where the form opts in (data-auto="on"); the Show button stays.
document.documentElement.classList.add('js');
document.addEventListener('change', (e) => {
  const el = e.target;
  if (el instanceof HTMLSelectElement && el.form && el.form.classList.contains('filters') && el.form.dataset.auto === 'on') el.form.requestSubmit();
});
