export type ResponseId = string | number;

export interface SuccessResponse {
	id?: ResponseId;
	type: "response";
	command: string;
	success: true;
	data?: unknown;
}

export interface ErrorResponse {
	id?: ResponseId;
	type: "response";
	command: string;
	success: false;
	error: string;
}

export type Response = SuccessResponse | ErrorResponse;

/** A success response; `data` is left out when undefined (a command with no payload). */
export function success(command: string, id: ResponseId | undefined, data?: unknown): SuccessResponse {
	const response: SuccessResponse = { type: "response", command, success: true };
	if (data !== undefined) response.data = data;
	return id === undefined ? response : { id, ...response };
}

export function failure(command: string, id: ResponseId | undefined, error: string): ErrorResponse {
	const response: ErrorResponse = { type: "response", command, success: false, error };
	return id === undefined ? response : { id, ...response };
}
