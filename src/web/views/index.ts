/**
 * The tabs of the details pane, in order; the first that applies to a file opens with it. A new tab (a package's
 * properties, a texture's thumbnail) is one module implementing `SubjectView` and one line here.
 */
import { hexTab } from './hex.js';
import { jsonTab } from './json.js';
import { locresTab } from './locres.js';
import { packageTab } from './package.js';
import { propsTab } from './props.js';
import { textTab } from './text.js';
import type { SubjectView } from './view.js';

export const subjectViews: SubjectView[] = [packageTab, propsTab, locresTab, textTab, jsonTab, hexTab];
export type { SubjectView, ViewContext } from './view.js';
