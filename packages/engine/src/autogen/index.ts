export { autogenRules } from "./autogen.js";
export { AUTOGEN_CONTROLLERS_ANNOTATION, autogenControllers } from "./controllers.js";
export { isAutogenRuleName } from "./generate.js";
