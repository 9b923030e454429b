// MathJax 2 settings for every page of the site. Markdown pages: pymdownx.arithmatex
// (generic mode) turns each $ ... $ into <span class="arithmatex">\( ... \)</span>.
// Notebook pages (mkdocs-jupyter): the markdown cells keep the notebook's $ ... $. Code
// (pre, code) is never read as mathematics (tex2jax's default skipTags).
window.MathJax = {
  tex2jax: {
    inlineMath: [["\\(", "\\)"], ["$", "$"]],
    displayMath: [["\\[", "\\]"], ["$$", "$$"]],
    processEscapes: true,
  },
  // The jupyter-server-mathjax wheel ships the STIX-Web fonts only: name them, or MathJax
  // looks for its TeX fonts, finds none and places accents and hats by guesswork.
  "HTML-CSS": {
    availableFonts: ["STIX-Web"],
    preferredFont: "STIX-Web",
    webFont: "STIX-Web",
    imageFont: null,
    linebreaks: { automatic: true },
  },
  messageStyle: "none",
};
