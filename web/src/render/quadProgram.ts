// One shader program draws both textured quads (desktop and pointer). The
// quad's corners come from gl_VertexID, so no vertex buffer exists at all.

const vertexSource = `#version 300 es
uniform vec4 u_dst; // left, top, right, bottom in clip space
out highp vec2 v_uv;
void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
  v_uv = corner; // (0,0) is the first pixel of the first row
  gl_Position = vec4(mix(u_dst.x, u_dst.z, corner.x), mix(u_dst.y, u_dst.w, corner.y), 0.0, 1.0);
}`;

// BGRA bytes were uploaded as if RGBA; swizzling here spares a CPU pass.
const fragmentSource = `#version 300 es
precision highp float;
uniform sampler2D u_texture;
uniform bool u_bgra;
uniform bool u_opaque;
in highp vec2 v_uv;
out vec4 outColor;
void main() {
  vec4 texel = texture(u_texture, v_uv);
  if (u_bgra) texel = texel.bgra;
  outColor = u_opaque ? vec4(texel.rgb, 1.0) : texel;
}`;

export interface QuadProgram {
  readonly program: WebGLProgram;
  readonly dst: WebGLUniformLocation;
  readonly texture: WebGLUniformLocation;
  readonly bgra: WebGLUniformLocation;
  readonly opaque: WebGLUniformLocation;
}

function compile(gl: WebGL2RenderingContext, type: number, source: string): WebGLShader {
  const shader = gl.createShader(type);
  if (!shader) throw new Error('cannot create shader');
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  if (gl.getShaderParameter(shader, gl.COMPILE_STATUS) !== true) {
    const log = gl.getShaderInfoLog(shader) ?? '';
    gl.deleteShader(shader);
    throw new Error(`shader compile failed: ${log}`);
  }
  return shader;
}

function uniform(gl: WebGL2RenderingContext, program: WebGLProgram, name: string): WebGLUniformLocation {
  const location = gl.getUniformLocation(program, name);
  if (!location) throw new Error(`uniform ${name} missing`);
  return location;
}

export function createQuadProgram(gl: WebGL2RenderingContext): QuadProgram {
  const program = gl.createProgram();
  const vertex = compile(gl, gl.VERTEX_SHADER, vertexSource);
  const fragment = compile(gl, gl.FRAGMENT_SHADER, fragmentSource);
  gl.attachShader(program, vertex);
  gl.attachShader(program, fragment);
  gl.linkProgram(program);
  gl.deleteShader(vertex);
  gl.deleteShader(fragment);
  if (gl.getProgramParameter(program, gl.LINK_STATUS) !== true) {
    throw new Error(`shader link failed: ${gl.getProgramInfoLog(program) ?? ''}`);
  }
  return {
    program,
    dst: uniform(gl, program, 'u_dst'),
    texture: uniform(gl, program, 'u_texture'),
    bgra: uniform(gl, program, 'u_bgra'),
    opaque: uniform(gl, program, 'u_opaque'),
  };
}
