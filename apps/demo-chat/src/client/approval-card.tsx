/**
 * An approval card: a tool part at `approval-requested` (the model's call of a tool that needs
 * approval, or a synthetic part for one a sub-agent asks about). It shows the tool and its input,
 * takes an optional reason, and approves or rejects.
 */
import { useState } from 'react';

export function ApprovalCard(props: {
  toolName: string;
  input: unknown;
  onDecide: (approved: boolean, reason: string) => void;
}) {
  const [reason, setReason] = useState('');
  return (
    <form className="card approval-card" onSubmit={(event) => event.preventDefault()}>
      <p className="title">
        Run <code className="tool-name">{props.toolName}</code>?
      </p>
      <pre className="json">{JSON.stringify(props.input, null, 2)}</pre>
      <input
        type="text"
        aria-label="Reason (optional)"
        placeholder="Reason (optional)"
        value={reason}
        onChange={(event) => setReason(event.target.value)}
      />
      <div className="actions">
        <button type="button" onClick={() => props.onDecide(true, reason.trim())}>
          Approve
        </button>
        <button type="button" className="secondary" onClick={() => props.onDecide(false, reason.trim())}>
          Reject
        </button>
      </div>
    </form>
  );
}
