// The web table's entry point: the header (who, language, log out), the sign-up and log-in
// forms, and the routes: #/ the lobby, #/game/<id> a table (mine, or a public one to watch).

import { api, session, whenUnauthorized } from "./api.js";
import { h } from "./dom.js";
import { LANGUAGES, lang, setLang, t } from "./i18n.js";
import { showLobby } from "./lobby.js";
import { openTable } from "./table.js";
import { loadRules } from "./words.js";

const main = document.getElementById("main");
let screen = null; // the open table, closed when leaving it

function toast(text) {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.classList.add("shown");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => box.classList.remove("shown"), 4000);
}


function header() {
  const player = session.player;
  document.getElementById("who").textContent = player ? t("signed_in_as", { name: player.display_name || player.username }) : "";
  const logout = document.getElementById("logout");
  logout.hidden = !player;
  logout.textContent = t("logout");
  document.getElementById("lang-label").textContent = t("language");
  const picker = document.getElementById("lang");
  picker.replaceChildren(...Object.entries(LANGUAGES).map(([code, name]) => {
    const option = h("option", { value: code, text: name });
    option.selected = code === lang();
    return option;
  }));
}

function authForm(mode) {
  const other = mode === "login" ? "signup" : "login";
  const form = h("form", { class: "card-panel auth", id: `${mode}-form` },
    h("h2", { text: t(mode) }),
    h("label", {}, h("span", { text: t("username") }), h("input", { name: "username", required: "", autocomplete: "username", maxlength: "150" })),
    h("label", {}, h("span", { text: t("password") }),
      h("input", { name: "password", type: "password", required: "", autocomplete: mode === "login" ? "current-password" : "new-password" })),
    h("button", { type: "submit", text: t(mode) }),
    h("p", {}, h("a", { href: `#/${other}`, text: mode === "login" ? t("no_account") : t("have_account") })),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button");
    button.disabled = true;
    try {
      const call = mode === "login" ? api.login : api.register;
      session.save(await call(form.username.value.trim(), form.password.value));
      location.hash = sessionStorage.getItem("truc.after") || "#/";
      sessionStorage.removeItem("truc.after");
    } catch (error) {
      const detail = error.problem && error.problem.errors ? error.problem.errors.map((e) => e.message).join(" ") : error.message;
      toast(t("error", { message: detail }));
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

function route() {
  if (screen) screen.close();
  screen = null;
  header();
  const path = location.hash.replace(/^#/, "") || "/";
  if (path === "/login" || path === "/signup") {
    main.replaceChildren(authForm(path.slice(1)));
    main.querySelector("input").focus();
    return;
  }
  if (!session.token) {
    if (path.startsWith("/game/")) sessionStorage.setItem("truc.after", location.hash);
    location.hash = "#/signup";
    return;
  }
  const game = path.match(/^\/game\/([0-9a-f-]{36})$/i);
  if (game) {
    screen = openTable(main, game[1], { toast });
  } else {
    showLobby(main, { toast });
  }
}

document.getElementById("logout").addEventListener("click", async () => {
  try {
    await api.logout();
  } catch {
    // The token may be gone already: logging out locally is what matters.
  }
  session.clear();
  location.hash = "#/login";
});
document.getElementById("lang").addEventListener("change", (event) => {
  setLang(event.target.value);
  route();
});
whenUnauthorized(() => {
  session.clear();
  location.hash = "#/login";
});
window.addEventListener("hashchange", route);
loadRules().then(route);
