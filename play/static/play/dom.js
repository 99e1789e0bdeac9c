// Building the page's elements: h(tag, attributes, ...children), shared by every screen.
// Attributes: "class", "text" (the text content), "on<event>" (a listener), "data_<name>" (a
// data- attribute); null, undefined and false leave an attribute out, true sets it empty.
// Children: nodes or strings, arrays flattened, null and undefined left out.

export function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key.startsWith("data_")) node.dataset[key.slice(5)] = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child);
  return node;
}
