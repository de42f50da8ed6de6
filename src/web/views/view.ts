/** The contract of a view in the details pane: one tab over the shown file. */
import type { Subject } from '../subject.js';

export interface ViewContext {
  /** False once the pane moved on to another file or set: a view then leaves its panel alone. */
  current(): boolean;
  /** Replaces the panel's content, if the view is still current. */
  show(...nodes: Array<Node | string>): void;
}

export interface SubjectView {
  /** Stable id: the tab's `data-view`, and what tests and links name. */
  id: string;
  label: string;
  /** Whether the view has something to show for this file (decided from its path, type and size only). */
  applies(s: Subject): boolean;
  /** Shows the view through `cx.show`; may read the subject's bytes or parsed package (`s.memo` keeps parses). */
  render(s: Subject, cx: ViewContext): Promise<void>;
}
