/**
 * An approval card: a tool part at `approval-requested` (the model's call of a tool that needs
 * approval, or a synthetic part for one a sub-agent asks about). It shows the tool, who asked for
 * it when a sub-agent did ("Requested by ln2-web › storage", from the message's
 * `metadata.turnkit.pending`), why it needs approval (the reason the tool gives, read from the
 * run's pending interaction with `GET /api/runs/:id`: the AI SDK part does not carry it) and its
 * input; it takes an optional reason, and approves or rejects.
 */
import { useEffect, useState } from 'react';

/** The approval's reason, from the run's view (`pending[].payload.reason`); null until read or if none. */
function useApprovalReason(runId: string | null, approvalId: string): string | null {
  const [reason, setReason] = useState<string | null>(null);
  useEffect(() => {
    if (!runId) return;
    const controller = new AbortController();
    fetch(`/api/runs/${encodeURIComponent(runId)}`, {
      headers: { accept: 'application/json' },
      signal: controller.signal,
    })
      .then((response) => (response.ok ? response.json() : null))
      .then((view: { pending?: { id: string; payload?: { reason?: unknown } }[] } | null) => {
        const found = view?.pending?.find((item) => item.id === approvalId)?.payload?.reason;
        if (typeof found === 'string' && found !== '') setReason(found);
      })
      // The card works without its reason: a failed read leaves it out.
      .catch(() => {});
    return () => controller.abort();
  }, [runId, approvalId]);
  return reason;
}

export function ApprovalCard(props: {
  toolName: string;
  input: unknown;
  /** The run the approval belongs to (`metadata.turnkit.runId`), to read its reason. */
  runId: string | null;
  approvalId: string;
  /** Agent names from the top agent down to the one that asked; a sub-agent's card names them. */
  agentPath: string[];
  onDecide: (approved: boolean, reason: string) => void;
}) {
  const [reason, setReason] = useState('');
  const why = useApprovalReason(props.runId, props.approvalId);
  return (
    <form className="card approval-card" onSubmit={(event) => event.preventDefault()}>
      <p className="title">
        Run <code className="tool-name">{props.toolName}</code>?
      </p>
      {props.agentPath.length > 1 && <p className="asker">Requested by {props.agentPath.join(' › ')}</p>}
      {why && <p className="reason">{why}</p>}
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
