// omoide inspector: the one script, loaded from this server (the page's
// Content-Security-Policy admits no other and no inline script). The pages
// work without it; it only keeps a forget button disabled until the name
// typed matches, so that a slip of the Enter key forgets nobody, and asks
// before a delete (form[data-ask]), which erases a memory's text for good.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    const input = form.querySelector("input[name=confirm]");
    const button = form.querySelector("button[type=submit]");
    const sync = () => { button.disabled = input.value !== form.dataset.confirm; };
    input.addEventListener("input", sync);
    sync();
  }
  for (const form of document.querySelectorAll("form[data-ask]")) {
    form.addEventListener("submit", (e) => { if (!window.confirm(form.dataset.ask)) e.preventDefault(); });
  }
});
