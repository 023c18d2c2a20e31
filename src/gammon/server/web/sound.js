// Optional sounds, off unless the player turns them on: made with WebAudio, no audio files.

let context = null;

export function soundsOn() { return localStorage.getItem("gammon.sounds") === "on"; }
export function setSounds(on) { localStorage.setItem("gammon.sounds", on ? "on" : "off"); }

function audio() {
  if (!context) context = new (window.AudioContext || window.webkitAudioContext)();
  return context;
}

function tone(frequency, start, length, type = "sine", gain = 0.12) {
  const ctx = audio();
  const osc = ctx.createOscillator(), amp = ctx.createGain();
  osc.type = type;
  osc.frequency.value = frequency;
  amp.gain.setValueAtTime(gain, ctx.currentTime + start);
  amp.gain.exponentialRampToValueAtTime(0.0001, ctx.currentTime + start + length);
  osc.connect(amp).connect(ctx.destination);
  osc.start(ctx.currentTime + start);
  osc.stop(ctx.currentTime + start + length + 0.02);
}

function clack(start, pitch) {
  // a short burst of noise through a band-pass filter: wood on wood
  const ctx = audio();
  const buffer = ctx.createBuffer(1, Math.floor(ctx.sampleRate * 0.05), ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
  const source = ctx.createBufferSource(), filter = ctx.createBiquadFilter(), amp = ctx.createGain();
  source.buffer = buffer;
  filter.type = "bandpass";
  filter.frequency.value = pitch;
  amp.gain.value = 0.5;
  source.connect(filter).connect(amp).connect(ctx.destination);
  source.start(ctx.currentTime + start);
}

/** ``dice``, ``move``, ``turn`` (your turn), ``end``. */
export function play(kind) {
  if (!soundsOn()) return;
  try {
    if (kind === "dice") { clack(0, 1800); clack(0.07, 1500); clack(0.15, 2100); }
    else if (kind === "move") clack(0, 900);
    else if (kind === "turn") { tone(660, 0, 0.18); tone(880, 0.12, 0.25); }
    else if (kind === "end") { tone(523, 0, 0.2); tone(659, 0.15, 0.2); tone(784, 0.3, 0.35); }
  } catch { /* no audio here: sounds are optional */ }
}
