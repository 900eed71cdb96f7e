// A guide page: mark the section the citation named (the URL's fragment) and move the focus there.
"use strict";
(function () {
  function isHeading(node) { return /^H[1-6]$/.test(node.tagName); }
  function mark() {
    Array.prototype.forEach.call(document.querySelectorAll(".cited"), function (n) { n.classList.remove("cited"); });
    var name = decodeURIComponent(location.hash.slice(1));
    if (!name) { return; }
    var target = document.getElementsByName(name)[0] || document.getElementById(name);
    if (!target) { return; }
    var heading = target.closest("h1, h2, h3, h4, h5, h6") || target;
    var node = heading;
    do { node.classList.add("cited"); node = node.nextElementSibling; } while (node && !isHeading(node));
    heading.setAttribute("tabindex", "-1");
    heading.focus();
    heading.scrollIntoView();
  }
  window.addEventListener("hashchange", mark);
  mark();
}());
