import {
	Array as ArrayType,
	Boolean as BooleanType,
	Enum,
	Integer,
	Literal,
	Never,
	Null,
	Number as NumberType,
	Object as ObjectType,
	Optional,
	Record as RecordType,
	Ref,
	String as StringType,
	Union,
	Unknown,
} from "typebox";

/**
 * The TypeBox builders Atomic's own schemas use, imported one by one. `import { Type } from
 * "typebox"` reaches every builder, TypeBox's type-script parser included, and puts ~100 KB more
 * code on the start-up path; these named imports let the bundler keep only what is used.
 */
export const Type = {
	Array: ArrayType,
	Boolean: BooleanType,
	Enum,
	Integer,
	Literal,
	Never,
	Null,
	Number: NumberType,
	Object: ObjectType,
	Optional,
	Record: RecordType,
	Ref,
	String: StringType,
	Union,
	Unknown,
} as const;
