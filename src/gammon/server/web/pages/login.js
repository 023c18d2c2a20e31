// Log in and register.

import { post } from "../api.js";
import { $, el } from "../dom.js";
import { title } from "../page.js";

export function loginPage(mode) {
  const register = mode === "register";
  $("#main").className = "narrow";
  title(register ? "Register" : "Log in");
  const error = el("p", { class: "error", role: "alert" });
  const form = el("form", { class: "stack card" },
    el("label", { for: "name", text: "Name" }), el("input", { id: "name", name: "name", autocomplete: "username", required: true }),
    el("label", { for: "password", text: "Password (8 characters or more)" }),
    el("input", { id: "password", name: "password", type: "password", autocomplete: register ? "new-password" : "current-password", required: true }),
    el("p", {}, el("button", { type: "submit", class: "primary", text: register ? "Register" : "Log in" })), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { name: $("#name").value, password: $("#password").value };
    try {
      if (register) await post("/api/users", body);
      await post("/api/sessions", body);
      location.hash = "#/lobby";
    } catch (failure) { error.textContent = failure.message; }
  });
  $("#main").append(el("p", { class: "lead", text: register
    ? "Pick a name and a password: then play a bot at once, or challenge anyone online."
    : "Welcome back. Log in to play; anyone may watch the matches being played." }), form,
  el("p", {}, register ? el("a", { href: "#/login", text: "I have an account: log in" }) : el("a", { href: "#/register", text: "New here? Register" })));
  return null;
}
