; Nodes that own an inline tree: prose, heading content, table cells.
(inline) @inline
(pipe_table_cell) @inline
